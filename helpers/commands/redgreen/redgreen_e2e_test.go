//go:build e2e

package redgreen

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/classproof/classproof/fixtures/targets"
	"github.com/classproof/classproof/fixtures/tiny"
)

// The self-test: throwaway repositories with a tiny launcher, a red commit without the class step
// and a green one with it, proven with the real suites, builds and processes.

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=classproof", "-c", "user.email=classproof@example.invalid", "-c", "commit.gpgsign=false"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// history makes a repository whose commit tagged red has redSrc and tagged green has greenSrc.
func history(t *testing.T, redSrc, greenSrc string) string {
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module tiny\n\ngo 1.22\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte(redSrc), 0o644)
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "-q", "-m", "red: the launcher without the class step")
	gitIn(t, dir, "tag", "red")
	os.WriteFile(filepath.Join(dir, "main.go"), []byte(greenSrc), 0o644)
	gitIn(t, dir, "commit", "-q", "-am", "green: the class step")
	gitIn(t, dir, "tag", "green")
	return dir
}

// prove runs the README's command: every suite, no --suite; focus "" is the form the README
// shows first (no selection: the proof is the fail-to-pass set).
func prove(t *testing.T, repo, focus string) *Proof {
	t.Helper()
	manifest := filepath.Join(t.TempDir(), "tiny.yaml")
	os.WriteFile(manifest, tiny.Manifest(), 0o644)
	// A change in the user's tree that the proof must leave alone.
	os.WriteFile(filepath.Join(repo, "UNCOMMITTED"), []byte("mine"), 0o644)
	f := DefaultFlags()
	f.Repo, f.Red, f.Green, f.Targets, f.Out, f.Focus = repo, "red", "green", []string{manifest}, filepath.Join(t.TempDir(), "out"), focus
	p, err := Prove(context.Background(), options(t, f))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("verdict: %s", p.Verdict.Reason)
	if got := gitIn(t, repo, "status", "--porcelain"); got != "?? UNCOMMITTED" {
		t.Errorf("the user's tree changed: git status says %q", got)
	}
	if wts := gitIn(t, repo, "worktree", "list"); strings.Count(wts, "\n") != 0 {
		t.Errorf("worktrees left behind:\n%s", wts)
	}
	return p
}

func TestProvenOnARealFix(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two launchers and runs the cpuclass suite twice")
	}
	repo := history(t, tiny.Source(false), tiny.Source(true))
	p := prove(t, repo, "")
	if !p.Verdict.Proven {
		t.Fatalf("verdict %q", p.Verdict.Reason)
	}
	n := len(p.Verdict.FailToPass)
	md, _ := os.ReadFile(filepath.Join(p.Options.Out, "receipt.md"))
	for _, want := range []string{
		"# classproof red/green: proven",
		"Selection: none: the whole lane, and the proof is its fail-to-pass set.",
		fmt.Sprintf("red at %s: %d of %d specs of the fail-to-pass set failed by their own assertion", p.Red.SHA[:12], n, n),
		"direct harness pid",
		fmt.Sprintf("green at %s: %d of %d passed", p.Green.SHA[:12], n, n),
		fmt.Sprintf("Fail to pass (%d: failed on red by their own assertion, pass on green):", n),
		"- cpuclass on Linux, idle mode (SCHED_IDLE + I/O idle) a direct session starts the direct harness and its tool sleep at background class",
		"Passed on both: ",
		"left out by the label filter (needs-hosted: target tiny declares no hosted session",
		"Reproduce: `cd " + p.Options.Launcher.Kit + " && go run ./cmd/classproof redgreen --red " + p.Red.SHA + " --green " + p.Green.SHA + " --target /",
		" --repo " + repo + "`",
		"Not run, ",
		"## Durations",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("receipt.md lacks %q:\n%s", want, md)
		}
	}
	if n < 2 || len(p.Verdict.PassedBoth) == 0 {
		t.Errorf("fail-to-pass %d, passed on both %d", n, len(p.Verdict.PassedBoth))
	}
	var j struct {
		Verdict struct {
			Proven   bool
			Outcomes []struct{ Name, Red, Green string }
		}
	}
	b, _ := os.ReadFile(filepath.Join(p.Options.Out, "receipt.json"))
	if err := json.Unmarshal(b, &j); err != nil || !j.Verdict.Proven || len(j.Verdict.Outcomes) != n {
		t.Errorf("receipt.json: %v %+v", err, j.Verdict)
	}
	// The Reproduce line, run as printed from another folder, gives the same verdict.
	line := p.Reproduce()
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "CI=true")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the Reproduce line %q failed: %v\n%s", line, err, out)
	}
	again, _ := os.ReadFile(filepath.Join(p.Options.Out, "receipt.json"))
	var k struct {
		Verdict struct {
			Proven     bool
			FailToPass []string
		}
	}
	if err := json.Unmarshal(again, &k); err != nil || !k.Verdict.Proven || strings.Join(k.Verdict.FailToPass, "|") != strings.Join(p.Verdict.FailToPass, "|") {
		t.Errorf("the Reproduce line gave another verdict: %v %+v\n%s", err, k.Verdict, out)
	}
}

// A selection must lie within the fail-to-pass set: a selected spec that the red commit leaves
// intact is named, with the set it should have been chosen from.
func TestASelectionPastTheFixNamesWhatRedLeavesIntact(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two launchers and runs the suites twice")
	}
	repo := history(t, tiny.Source(false), tiny.Source(true))
	p := prove(t, repo, "starts the direct harness")
	for _, want := range []string{
		"starts the direct harness and its tool sleep at the control's class\": passed on red: the red commit leaves this promise intact",
		"the fail-to-pass set is",
	} {
		if p.Verdict.Proven || !strings.Contains(p.Verdict.Reason, want) {
			t.Errorf("verdict %q lacks %q", p.Verdict.Reason, want)
		}
	}
}

func TestNotProvenWhenRedDoesNotBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds launchers")
	}
	repo := history(t, tiny.Source(false)+"\nfunc broken( {\n", tiny.Source(true))
	p := prove(t, repo, "")
	if p.Verdict.Proven || !strings.HasPrefix(p.Verdict.Reason, "not proven (build failed on red)") {
		t.Fatalf("verdict %q", p.Verdict.Reason)
	}
}

func TestNotProvenWhenGreenStillFails(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two launchers and runs the cpuclass suite twice")
	}
	repo := history(t, tiny.Source(false), tiny.Source(false)+"\n// a fix that fixes nothing\n")
	p := prove(t, repo, "")
	if p.Verdict.Proven || !strings.Contains(p.Verdict.Reason, "the fail-to-pass set is empty") {
		t.Fatalf("verdict %q", p.Verdict.Reason)
	}
	p = prove(t, repo, "at background class")
	if p.Verdict.Proven || !strings.Contains(p.Verdict.Reason, "failed on green") {
		t.Fatalf("with a selection: verdict %q", p.Verdict.Reason)
	}
}

// proveTwoTargets proves refmux built as the noclass variant (red) against the reference as green
// edits it, both prebuilt from the kit (no repository), on the cpuclass suite.
func proveTwoTargets(t *testing.T, editGreen func(string) string) *Proof {
	t.Helper()
	ref, err := targets.FS.ReadFile(targets.Default)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	red, green := filepath.Join(dir, "red.yaml"), filepath.Join(dir, "green.yaml")
	os.WriteFile(red, []byte(strings.Replace(string(ref), `variant: ""`, `variant: "noclass"`, 1)), 0o644)
	os.WriteFile(green, []byte(editGreen(string(ref))), 0o644)
	f := DefaultFlags()
	f.RedTarget, f.GreenTarget, f.Suites, f.Out, f.Focus = red, green, []string{"./suites/cpuclass"}, filepath.Join(dir, "out"), "at background class"
	p, err := Prove(context.Background(), options(t, f))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Two prebuilt launchers, no repository: refmux built as the noclass variant, and the reference.
func TestProvenWithTwoTargets(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the cpuclass suite twice")
	}
	p := proveTwoTargets(t, func(ref string) string { return ref })
	// The linux-idle specs "at background class": the 3 s watch and the whole-run spec included.
	if !p.Verdict.Proven || len(p.Verdict.Outcomes) != 7 {
		t.Fatalf("verdict %q, %d outcomes", p.Verdict.Reason, len(p.Verdict.Outcomes))
	}
}

// A green side whose launcher lost its exec bit is one cause, named alone: not a list of specs
// that "exist on red but not on green".
func TestNotProvenWhenGreenCannotBeDriven(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the cpuclass suite once")
	}
	p := proveTwoTargets(t, func(ref string) string {
		return strings.Replace(ref,
			`run: [go, build, "-ldflags=-X main.variant={variant}", -o, "{bin}/refmux", ./fixtures/refmux]`,
			`run: [sh, -c, "go build -o {bin}/refmux ./fixtures/refmux && chmod -x {bin}/refmux"]`, 1)
	})
	r := p.Verdict.Reason
	if p.Verdict.Proven || !strings.HasPrefix(r, "not proven (the launcher cannot be driven on green)") ||
		!strings.Contains(r, "not executable") || strings.Contains(r, "exists on red but not on green") {
		t.Fatalf("verdict %q", r)
	}
}

// The refs are checked before anything is built: two names for one commit, or HEAD with
// uncommitted changes to tracked files, are refused; the user's own stale worktree entries stay.
func TestRefsAreCheckedAndTheUsersWorktreesKept(t *testing.T) {
	repo := history(t, tiny.Source(false), tiny.Source(true))
	f := DefaultFlags()
	f.Repo, f.Red, f.Green, f.Targets, f.Out, f.Focus = repo, "HEAD", "green", []string{"embedded:refmux.yaml"}, t.TempDir(), "x"
	if _, err := Prove(context.Background(), options(t, f)); err == nil || !strings.Contains(err.Error(), "are the same commit") {
		t.Errorf("red HEAD and green green (one commit): %v", err)
	}
	os.WriteFile(filepath.Join(repo, "main.go"), []byte(tiny.Source(true)+"\n// work in progress\n"), 0o644)
	f.Red = "red"
	if _, err := Prove(context.Background(), options(t, f)); err == nil || !strings.Contains(err.Error(), "uncommitted changes to tracked files") {
		t.Errorf("HEAD with a modified main.go: %v", err)
	}
	gitIn(t, repo, "checkout", "--", "main.go")
	// A stale worktree entry of the user's: its folder is gone.
	stale := filepath.Join(t.TempDir(), "mine")
	gitIn(t, repo, "worktree", "add", "--detach", stale, "red")
	os.RemoveAll(stale)
	f.Focus, f.Suites = "a direct session starts", []string{"./suites/cpuclass"}
	f.Targets = []string{filepath.Join(t.TempDir(), "tiny.yaml")}
	os.WriteFile(f.Targets[0], tiny.Manifest(), 0o644)
	if _, err := Prove(context.Background(), options(t, f)); err != nil {
		t.Fatal(err)
	}
	if list := gitIn(t, repo, "worktree", "list", "--porcelain"); !strings.Contains(list, stale) {
		t.Errorf("the user's stale worktree entry %s was pruned:\n%s", stale, list)
	}
}

// A build step that reads nothing of {repo} (an absolute build.dir: the user's own tree) would
// build the same tree for both sides, and the receipt would speak of commits never built: the
// proof refuses it before building anything.
func TestAProofRefusesABuildThatDoesNotReadTheRepo(t *testing.T) {
	repo := history(t, tiny.Source(false), tiny.Source(true))
	manifest := filepath.Join(t.TempDir(), "tiny.yaml")
	abs := strings.Replace(string(tiny.Manifest()), `dir: "{repo}"`, `dir: "`+repo+`"`, 1)
	os.WriteFile(manifest, []byte(abs), 0o644)
	f := DefaultFlags()
	f.Repo, f.Red, f.Green, f.Targets, f.Out, f.Focus = repo, "red", "green", []string{manifest}, t.TempDir(), "a direct session starts"
	began := time.Now()
	_, err := Prove(context.Background(), options(t, f))
	if err == nil || !strings.Contains(err.Error(), "read nothing of {repo}") || !strings.Contains(err.Error(), "commits never built") {
		t.Fatalf("an absolute build.dir was accepted for a proof: %v", err)
	}
	if took := time.Since(began); took > 10*time.Second {
		t.Errorf("refused after %v: it built first", took)
	}
}
