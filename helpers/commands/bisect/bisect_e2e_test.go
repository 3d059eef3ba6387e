//go:build e2e

package bisect

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/classproof/classproof/fixtures/targets"
	"github.com/classproof/classproof/helpers/base/git"
	"github.com/classproof/classproof/helpers/base/proctable"
	"github.com/classproof/classproof/helpers/binaries"
	"github.com/classproof/classproof/helpers/runner"
)

// gitIn runs git in dir as a committer of the tests' own, failing t on an error.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := git.Run(dir, append([]string{"-c", "user.name=classproof", "-c", "user.email=classproof@example.invalid", "-c", "commit.gpgsign=false"}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// bisectManifest is refmux, built from the kit with the variant a commit of the fixture
// repository names in its file "variant"; a commit with a file BROKEN does not build.
func bisectManifest(t *testing.T) string {
	b, err := targets.FS.ReadFile("refmux.yaml")
	if err != nil {
		t.Fatal(err)
	}
	old := `  run: [go, build, "-ldflags=-X main.variant={variant}", -o, "{bin}/refmux", ./fixtures/refmux]`
	build := `  run: [sh, -c, 'if [ -e "$0/BROKEN" ]; then echo "this commit does not build" >&2; exit 1; fi; exec go build "-ldflags=-X main.variant=$(cat "$0/variant")" -o "$1/refmux" ./fixtures/refmux', "{repo}", "{bin}"]`
	if !strings.Contains(string(b), old) {
		t.Fatal("refmux.yaml's build line changed; change bisectManifest with it")
	}
	path := filepath.Join(t.TempDir(), "bisect.yaml")
	os.WriteFile(path, []byte(strings.Replace(string(b), old, build, 1)), 0o644)
	return path
}

// bisectHistory is a repository of 17 commits: the first (tagged good) builds the reference; the
// commit "turn on no-envref" (the 10th after good) builds refmux's no-envref variant, and every
// later one too; the 8th after good does not build. The tip is tagged bad.
func bisectHistory(t *testing.T) (repo, breaking, broken string) {
	repo = t.TempDir()
	os.Chmod(repo, 0o755)
	gitIn(t, repo, "init", "-q", "-b", "main")
	write := func(name, s string) { os.WriteFile(filepath.Join(repo, name), []byte(s), 0o644) }
	write("variant", "")
	write("NOTES", "0\n")
	gitIn(t, repo, "add", ".")
	gitIn(t, repo, "commit", "-q", "-m", "the reference")
	gitIn(t, repo, "tag", "good")
	for i := 1; i <= 16; i++ {
		subject := fmt.Sprintf("change %d", i)
		switch i {
		case 8:
			write("BROKEN", "")
			subject = "a commit that does not build"
		case 9:
			os.Remove(filepath.Join(repo, "BROKEN"))
		case 10:
			write("variant", "no-envref")
			subject = "turn on no-envref"
		}
		write("NOTES", fmt.Sprintf("%d\n", i))
		gitIn(t, repo, "add", "-A")
		gitIn(t, repo, "commit", "-q", "-m", subject)
		switch i {
		case 8:
			broken = gitIn(t, repo, "rev-parse", "HEAD")
		case 10:
			breaking = gitIn(t, repo, "rev-parse", "HEAD")
		}
	}
	gitIn(t, repo, "tag", "bad")
	os.WriteFile(filepath.Join(repo, "UNCOMMITTED"), []byte("mine"), 0o644) // the user's, left alone
	return repo, breaking, broken
}

// repoState is everything of a repository a search must leave as it was.
func repoState(t *testing.T, repo string) string {
	var b strings.Builder
	for _, args := range [][]string{{"rev-parse", "HEAD"}, {"status", "--porcelain", "--untracked-files=all"}, {"worktree", "list", "--porcelain"},
		{"for-each-ref"}, {"stash", "list"}, {"symbolic-ref", "HEAD"}} {
		fmt.Fprintf(&b, "%v: %s\n", args, gitIn(t, repo, args...))
	}
	for _, f := range []string{"BISECT_LOG", "BISECT_START", "BISECT_TERMS", "worktrees"} {
		_, err := os.Stat(filepath.Join(repo, ".git", f))
		fmt.Fprintf(&b, ".git/%s exists: %v\n", f, err == nil)
	}
	return b.String()
}

func bisectOptionsFor(t *testing.T, repo string) Options {
	t.Helper()
	f := DefaultFlags()
	f.Repo, f.Good, f.Bad, f.Targets, f.Out = repo, "good", "bad", []string{bisectManifest(t)}, filepath.Join(t.TempDir(), "out")
	f.Suites = []string{"./suites/resolve"}
	kit, err := binaries.KitDir()
	if err != nil {
		t.Fatal(err)
	}
	o, err := f.Options(targets.Catalog(), kit, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// The acceptance: bisect names the commit that turned the variant on, lists the one that does not
// build as skipped, runs the focused specs at most ceil(log2(N))+2 times plus one confirming run,
// and leaves the repository exactly as it was.
func TestBisectFindsTheBreakingCommitAndLeavesTheRepositoryAsItWas(t *testing.T) {
	repo, breaking, broken := bisectHistory(t)
	before := repoState(t, repo)
	o := bisectOptionsFor(t, repo)
	b, err := Search(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	md := Markdown(b)
	if !b.Found || b.FirstBad == nil || b.FirstBad.SHA != breaking {
		t.Fatalf("first bad commit: want %s (turn on no-envref), got %+v\n%s", git.Short(breaking), b.FirstBad, md)
	}
	if len(b.Skipped) != 1 || b.Skipped[0].SHA != broken || !strings.Contains(b.Skipped[0].Why, "125") {
		t.Errorf("skipped: want only %s (does not build), got %+v\n%s", git.Short(broken), b.Skipped, md)
	}
	bound := int(math.Ceil(math.Log2(float64(b.Range)))) + 2
	confirms := 0
	for _, s := range b.Steps {
		if s.What == "confirm" {
			confirms++
		}
	}
	if b.FocusedRuns() > bound || confirms != 1 {
		t.Errorf("%d runs of the focused specs (at most ceil(log2(%d))+2 = %d) and %d confirming runs (want 1)\n%s", b.FocusedRuns(), b.Range, bound, confirms, md)
	}
	if len(b.Broke) == 0 || !strings.Contains(md, "Reproduce: `") {
		t.Errorf("the receipt names no spec that broke, or no Reproduce line:\n%s", md)
	}
	for _, s := range b.Steps {
		if s.Verdict != "skipped" {
			if _, err := os.Stat(s.Report); err != nil {
				t.Errorf("step %s on %s: its report %q is not in --out: %v", s.What, git.Short(s.SHA), s.Report, err)
			}
		}
	}
	if after := repoState(t, repo); after != before {
		t.Errorf("the repository changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if _, err := os.Stat(filepath.Join(o.Flags.Out, "bisect.md")); err != nil {
		t.Error(err)
	}
	t.Logf("%s", md)
	// The Reproduce line, run as printed from another folder, names the same commit.
	cmd := exec.Command("sh", "-c", reproduce(b))
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "first bad commit "+git.Short(breaking)) {
		t.Errorf("the Reproduce line %q: %v (want exit 0 and first bad commit %s)\n%s", reproduce(b), err, git.Short(breaking), out)
	}
	if after := repoState(t, repo); after != before {
		t.Errorf("the repository changed after the Reproduce line:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// Interrupted half way (the CLI's Ctrl-C ends ctx): the search stops within the stop grace with
// an interrupt error (exit 1), and no worktree, bisect state or process of it is left.
func TestAnInterruptedBisectLeavesNothing(t *testing.T) {
	repo, _, _ := bisectHistory(t)
	before := repoState(t, repo)
	o := bisectOptionsFor(t, repo)
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw, _ := os.Pipe()
	o.Progress = pw
	cancelledAt := make(chan time.Time, 1)
	go func() {
		buf := make([]byte, 4096)
		var seen strings.Builder
		for {
			n, err := pr.Read(buf)
			seen.Write(buf[:n])
			if strings.Contains(seen.String(), "step 2:") || err != nil {
				// Half way: the range bracketed, a step done, the next one building or running.
				time.Sleep(time.Second)
				cancelledAt <- time.Now()
				cancel()
				return
			}
		}
	}()
	done := make(chan error, 1)
	var stopped time.Time
	go func() {
		_, err := Search(ctx, o)
		stopped = time.Now()
		done <- err
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Minute):
		t.Fatal("bisect did not end")
	}
	pw.Close()
	if err == nil || !errors.Is(err, context.Canceled) {
		t.Errorf("an interrupted bisect returned %v, want the interrupt (context.Canceled: exit 1)", err)
	}
	took := stopped.Sub(<-cancelledAt)
	if took > runner.StopGrace {
		t.Errorf("the search took %v to stop after the interrupt, more than the stop grace %v", took, runner.StopGrace)
	}
	t.Logf("stopped %v after the interrupt (stop grace %v): %v", took.Round(time.Millisecond), runner.StopGrace, err)
	if after := repoState(t, repo); after != before {
		t.Errorf("the repository changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	all, _ := proctable.Table()
	for pid := range all {
		if args, _ := proctable.Args(pid); strings.Contains(strings.Join(args, " "), "classproof-bisect") {
			t.Errorf("pid %d %q of the search is still running", pid, args)
		}
	}
}
