//go:build e2e

package main

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"

	"github.com/classproof/classproof/fixtures/targets"
	"github.com/classproof/classproof/helpers/base/readonly"
	"github.com/classproof/classproof/helpers/binaries"
)

// selfTestVersion is the version the self-test serves this checkout as.
const selfTestVersion = "v0.0.0-selftest"

// A launcher's team runs the kit from its own repository, at a pinned version, with
// `go run github.com/classproof/classproof/cmd/classproof@VERSION run --target classproof.yaml`.
// Offline: this checkout is served as that version from a file:// GOPROXY (its dependencies from
// the module cache's own download folder, which is a proxy too), into a fresh module cache. The
// kit's folder in that cache is made read-only (Go leaves it 0444/0555; root ignores modes, so a
// read-only bind mount stands in), and the run starts in a subfolder of a git repository that
// holds only a bash launcher and its manifest: the kit must find its own source, write nothing
// into it, take {repo} as that repository's root and the manifest path as relative to where it
// was started, and put its reports there.
func TestGoRunAtAVersionFromAnotherRepository(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI from a module proxy and starts a run")
	}
	kit, err := binaries.KitDir()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	// A checkout a root kit's launcher user (nobody) reaches, as a container job's workspace is.
	for _, d := range []string{filepath.Dir(tmp), tmp} {
		must(t, os.Chmod(d, 0o755))
	}
	proxy := filepath.Join(tmp, "proxy")
	serveModule(t, kit, proxy)
	realCache := goEnv(t, "GOMODCACHE")
	modcache := filepath.Join(tmp, "modcache")
	env := append(os.Environ(),
		"GOPROXY=file://"+proxy+",file://"+filepath.Join(realCache, "cache", "download"),
		"GOMODCACHE="+modcache,
		"GOFLAGS=-mod=mod",
		// Offline there is no checksum database: this module is new to it, and the dependencies
		// are checked below against the kit's go.sum instead (which the database vouched for when
		// they were added).
		"GONOSUMDB="+strings.Join(append([]string{binaries.Module}, required(t, kit)...), ","),
		"GONOPROXY=", "GOPRIVATE=",
		"GOWORK=off", "GOTOOLCHAIN=local",
		"GOCACHE="+goEnv(t, "GOCACHE"), // the build cache is not what this is about, and keeps it fast
		"XDG_CACHE_HOME="+filepath.Join(tmp, "usercache"),
		"CLASSPROOF_KIT=", "CLASSPROOF_TARGET=", "CLASSPROOF_BIN=", "CLASSPROOF_REPO=",
	)
	t.Cleanup(func() {
		// Go leaves the module cache read-only; its own command removes it.
		c := exec.Command("go", "clean", "-modcache")
		c.Env = env
		c.Dir = tmp
		_ = c.Run()
	})
	// The launcher's repository: not Go, a bash launcher and its manifest.
	repo := filepath.Join(tmp, "launcher-repo")
	sub := filepath.Join(repo, "docs")
	must(t, os.MkdirAll(sub, 0o755))
	must(t, exec.Command("git", "init", "-q", repo).Run())
	sh, err := os.ReadFile(filepath.Join(kit, "fixtures", "shmux", "shmux"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(repo, "shmux"), sh, 0o755))
	manifest, err := targets.FS.ReadFile("shmux-bare.yaml")
	must(t, err)
	// The launcher is in the repository, executable: no build step.
	m := strings.NewReplacer(`shmux: "{bin}/shmux"`, `shmux: "{repo}/shmux"`,
		`  run: [install, -m, "0755", "{kit}/fixtures/shmux/shmux", "{bin}/shmux"]`+"\n", "",
		"build:\n", "").Replace(string(manifest))
	if strings.Contains(m, "{bin}") || strings.Contains(m, "build:") {
		t.Fatalf("shmux-bare.yaml no longer has the shape this test rewrites; update it:\n%s", m)
	}
	must(t, os.WriteFile(filepath.Join(repo, "classproof.yaml"), []byte(m), 0o644))

	goCmd := func(args ...string) *exec.Cmd {
		c := exec.Command("go", args...)
		c.Env, c.Dir = env, sub
		return c
	}
	pkg := binaries.Module + "/cmd/classproof@" + selfTestVersion
	// The first go run downloads the kit (as any first use does); then its folder is read-only.
	out, err := goCmd("run", pkg, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("go run %s version: %v\n%s", pkg, err, out)
	}
	if !strings.Contains(string(out), "classproof "+selfTestVersion) {
		t.Errorf("version does not name the module version:\n%s", out)
	}
	checkSums(t, kit, modcache)
	kitInCache := filepath.Join(modcache, binaries.Module+"@"+selfTestVersion)
	undo, err := readonly.Make(kitInCache, os.Geteuid(), os.Getegid())
	if err != nil {
		t.Fatalf("making the kit's folder in the module cache read-only: %v", err)
	}
	t.Cleanup(func() { _ = undo() })
	if err := readonly.Check(kitInCache, os.Geteuid(), os.Getegid()); err != nil {
		t.Fatal(err)
	}

	// -trimpath: the binary records no source folder, so the kit finds itself by its version.
	run := goCmd("run", "-trimpath", pkg, "run", "--target", "../classproof.yaml", "--suite", "./suites/cpuclass", "--label-filter", "!concurrency", "--out", "reports")
	start := time.Now()
	out, err = run.CombinedOutput()
	t.Logf("go run %s run: %.1fs\n%s", pkg, time.Since(start).Seconds(), out)
	if err != nil {
		t.Fatalf("the run failed: %v", err)
	}
	for _, want := range []string{"target shmux-bare (" + filepath.Join(repo, "classproof.yaml") + ")", " 0 failed"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the run's output lacks %q", want)
		}
	}
	var meta struct {
		Passed bool `json:"passed"`
	}
	b, err := os.ReadFile(filepath.Join(sub, "reports", "run.json"))
	if err != nil {
		t.Fatalf("the reports are not where the run was started: %v", err)
	}
	if json.Unmarshal(b, &meta) != nil || !meta.Passed {
		t.Errorf("run.json does not say passed:\n%s", b)
	}
	// The compiled suites went to the user's cache, under the version, and were removed.
	left, _ := filepath.Glob(filepath.Join(tmp, "usercache", "classproof", selfTestVersion, ".suites-*"))
	if _, err := os.Stat(filepath.Join(tmp, "usercache", "classproof", selfTestVersion)); err != nil || len(left) > 0 {
		t.Errorf("the user's cache folder for %s: %v, left behind: %v", selfTestVersion, err, left)
	}
}

// serveModule writes the checkout's files (tracked and new, not ignored) as module version
// selfTestVersion in a GOPROXY folder.
func serveModule(t *testing.T, kit, proxy string) {
	t.Helper()
	ls := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	ls.Dir = kit
	names, err := ls.Output()
	if err != nil {
		t.Skipf("the self-test serves a git checkout as a module; %s is not one: %v", kit, err)
	}
	var files []modzip.File
	for _, n := range strings.Split(strings.TrimRight(string(names), "\x00"), "\x00") {
		if fi, err := os.Lstat(filepath.Join(kit, n)); err == nil && fi.Mode().IsRegular() {
			files = append(files, checkoutFile{kit, n})
		}
	}
	dir := filepath.Join(proxy, binaries.Module, "@v")
	must(t, os.MkdirAll(dir, 0o755))
	var zip bytes.Buffer
	must(t, modzip.Create(&zip, module.Version{Path: binaries.Module, Version: selfTestVersion}, files))
	must(t, os.WriteFile(filepath.Join(dir, selfTestVersion+".zip"), zip.Bytes(), 0o644))
	mod, err := os.ReadFile(filepath.Join(kit, "go.mod"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, selfTestVersion+".mod"), mod, 0o644))
	info := `{"Version":"` + selfTestVersion + `","Time":"2026-01-01T00:00:00Z"}`
	must(t, os.WriteFile(filepath.Join(dir, selfTestVersion+".info"), []byte(info), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "list"), []byte(selfTestVersion+"\n"), 0o644))
}

// required is every module path the kit's go.mod requires.
func required(t *testing.T, kit string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(kit, "go.mod"))
	must(t, err)
	f, err := modfile.ParseLax("go.mod", b, nil)
	must(t, err)
	var paths []string
	for _, r := range f.Require {
		paths = append(paths, r.Mod.Path)
	}
	return paths
}

// checkSums compares every module zip the fresh module cache downloaded with the kit's go.sum:
// what the checksum database would have said, offline.
func checkSums(t *testing.T, kit, modcache string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(kit, "go.sum"))
	must(t, err)
	sums := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		sums[line] = true
	}
	checked := 0
	download := filepath.Join(modcache, "cache", "download")
	err = filepath.WalkDir(download, func(h string, d fs.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(h, ".ziphash") {
			return err
		}
		rel, _ := filepath.Rel(download, h)
		mod, ver := filepath.ToSlash(filepath.Dir(filepath.Dir(rel))), strings.TrimSuffix(filepath.Base(h), ".ziphash")
		path, err := module.UnescapePath(mod)
		if err != nil || path == binaries.Module {
			return err
		}
		sum, err := os.ReadFile(h)
		if err != nil {
			return err
		}
		if line := path + " " + ver + " " + strings.TrimSpace(string(sum)); !sums[line] {
			t.Errorf("the downloaded %s@%s has hash %s, which the kit's go.sum does not list", path, ver, sum)
		}
		checked++
		return nil
	})
	must(t, err)
	if checked == 0 {
		t.Error("no downloaded dependency was checked against go.sum")
	}
	t.Logf("%d downloaded dependencies match the kit's go.sum", checked)
}

type checkoutFile struct{ root, name string }

func (f checkoutFile) Path() string                 { return filepath.ToSlash(f.name) }
func (f checkoutFile) Lstat() (os.FileInfo, error)  { return os.Lstat(filepath.Join(f.root, f.name)) }
func (f checkoutFile) Open() (io.ReadCloser, error) { return os.Open(filepath.Join(f.root, f.name)) }

func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	must(t, err)
	return strings.TrimSpace(string(out))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
