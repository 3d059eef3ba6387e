package launcher

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/classproof/classproof/helpers/base/confine"
	"github.com/classproof/classproof/helpers/base/identity"
	"github.com/classproof/classproof/helpers/manifest"
)

// A target's build writes the compiler cache its later builds trust ({cache}, HOME below it):
// another target, someone else's launcher, gets a folder of its own (issue 53: a hostile
// target's build rewrote a Go cache entry and a known-red build passed). A target is its build
// step, the kit and the repository, whichever worktree of it and wherever the manifest was put:
// a cache keyed by the manifest's path was cold for every copy and broke the kit's own deadlines.
func TestEachTargetHasABuildCacheOfItsOwn(t *testing.T) {
	repo, other := gitRepo(t), gitRepo(t)
	tree := filepath.Join(t.TempDir(), "tree")
	if out, err := exec.Command("git", "-C", repo, "-c", "core.hooksPath=/dev/null", "worktree", "add", "--detach", tree).CombinedOutput(); err != nil {
		t.Fatalf("git worktree add: %v\n%s", err, out)
	}
	build := func(run ...string) *manifest.Manifest {
		return &manifest.Manifest{Source: "/anywhere/" + strings.Join(run, "-") + ".yaml", Build: &manifest.Command{Run: run}}
	}
	mine := BuildCache(build("make", "-C", "{repo}"), manifest.Paths{Kit: "/kit", Repo: repo})
	for _, c := range []struct {
		what string
		got  string
		same bool
	}{
		{"the same build step in a manifest elsewhere", BuildCache(&manifest.Manifest{Source: "/tmp/copy.yaml", Build: &manifest.Command{Run: []string{"make", "-C", "{repo}"}}}, manifest.Paths{Kit: "/kit", Repo: repo}), true},
		{"another worktree of the repository (a red/green side)", BuildCache(build("make", "-C", "{repo}"), manifest.Paths{Kit: "/kit", Repo: tree}), true},
		{"another repository", BuildCache(build("make", "-C", "{repo}"), manifest.Paths{Kit: "/kit", Repo: other}), false},
		{"another build step", BuildCache(build("make", "-C", "{repo}", "all"), manifest.Paths{Kit: "/kit", Repo: repo}), false},
		{"another kit", BuildCache(build("make", "-C", "{repo}"), manifest.Paths{Kit: "/kit2", Repo: repo}), false},
		{"a tree whose .git file names the repository's folder (no worktree of it)", BuildCache(build("make", "-C", "{repo}"), manifest.Paths{Kit: "/kit", Repo: impostor(t, repo)}), false},
	} {
		if (c.got == mine) != c.same {
			t.Errorf("%s: {cache} %s beside %s, want same=%v", c.what, c.got, mine, c.same)
		}
	}
	user := fmt.Sprintf("uid-%d", identity.Launcher().Uid)
	if filepath.Base(filepath.Dir(mine)) != user || filepath.Dir(filepath.Dir(mine)) != buildCaches() {
		t.Errorf("{cache} %s is not below %s/%s", mine, buildCaches(), user)
	}
}

// A writes entry may name the target's own {cache}, never another target's, nor a folder that
// holds them all, by name or through a symlink (the review of issue 53 wrote another target's
// entry through writes: [/tmp/classproof-cache-0]).
func TestWritesNeverReachAnotherTargetsCache(t *testing.T) {
	vals := map[string]string{"cache": filepath.Join(buildCaches(), "uid-1", "mine")}
	if _, err := writes("build.writes", []string{"{cache}/go"}, vals); err != nil {
		t.Errorf("its own {cache}: %v", err)
	}
	base := identity.ForBuild().CacheBase()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(base, link); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		filepath.Join(buildCaches(), "uid-1", "theirs", "home"), // another target's
		base,                          // the folder holding them all
		filepath.Dir(base),            // one above it
		"/",                           // everything
		"{cache}/../theirs",           // out of its own by ..
		filepath.Join(link, "x", "y"), // through a symlink
	} {
		_, err := writes("build.writes", []string{w}, vals)
		if err == nil || !strings.Contains(err.Error(), "a target may write only its own {cache} there") {
			t.Errorf("writes %s: %v, want a refusal naming it", w, err)
		}
	}
}

// impostor is a tree whose .git file names repo's own git folder, as a worktree's would, with
// no worktree of repo behind it.
func impostor(t *testing.T, repo string) string {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".git"), []byte("gitdir: "+filepath.Join(repo, ".git")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func gitRepo(t *testing.T) string {
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir, "-c", "core.hooksPath=/dev/null"}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// Two targets built on one machine: the hostile one's build step writes where the other's
// {cache} is (standing for a Go build-cache entry the other's next build trusts). The sandbox
// refuses it, and the other's entry is as its own build left it (issue 53: the red build stays
// red). A build that declares the other's folder under build.writes is refused before it runs.
func TestOneTargetsBuildCannotWriteAnothersCache(t *testing.T) {
	if k := confine.Current().Kind; k == "none" {
		t.Skipf("no write sandbox in force (%s): without one a build of the launcher's user may write every target's {cache}; docs/containment.md says so", confine.Current())
	}
	kit := t.TempDir()
	victim, err := manifest.Parse("victim.yaml", []byte(good+`build:
  run: [sh, -c, 'printf red >"$1/entry" && printf "#!/bin/sh\n" >"$2/t" && chmod +x "$2/t"', sh, "{cache}", "{bin}"]
`))
	if err != nil {
		t.Fatal(err)
	}
	vd, err := New(victim, manifest.Paths{Kit: kit, Bin: reachableBin(t)}, "")
	if err != nil {
		t.Fatal(err)
	}
	entry := filepath.Join(vd.vals["cache"], "entry")
	t.Cleanup(func() { os.RemoveAll(vd.vals["cache"]) })
	if err := vd.Build(context.Background(), io.Discard); err != nil {
		t.Fatal(err)
	}
	poison := fmt.Sprintf(`build:
  run: [sh, -c, 'printf green >"$1"; printf "#!/bin/sh\n" >"$2/t" && chmod +x "$2/t"', sh, %q, "{bin}"]
`, entry)
	hostile, err := manifest.Parse("hostile.yaml", []byte(good+poison))
	if err != nil {
		t.Fatal(err)
	}
	hd, err := New(hostile, manifest.Paths{Kit: kit, Bin: reachableBin(t)}, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(hd.vals["cache"]) })
	var log strings.Builder
	berr := hd.Build(context.Background(), &log)
	if got, err := os.ReadFile(entry); err != nil || string(got) != "red" {
		t.Fatalf("the victim's {cache} entry %s after the hostile build (err %v, log %q): %q, %v; want red", entry, berr, log.String(), got, err)
	}

	declared, err := manifest.Parse("declared.yaml", []byte(good+poison+"  writes: ["+filepath.Dir(entry)+"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	dd, err := New(declared, manifest.Paths{Kit: kit, Bin: reachableBin(t)}, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dd.vals["cache"]) })
	if err := dd.Build(context.Background(), io.Discard); err == nil || !strings.Contains(err.Error(), "a target may write only its own {cache} there") {
		t.Errorf("a build declaring another target's {cache} under build.writes: %v, want a refusal", err)
	}
	if got, _ := os.ReadFile(entry); string(got) != "red" {
		t.Errorf("the victim's entry is %q after the declared build, want red", got)
	}
}
