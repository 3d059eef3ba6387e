package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/classproof/classproof/helpers/binaries"
	"github.com/classproof/classproof/helpers/commands/mutants"
	"github.com/classproof/classproof/helpers/gate"
	"github.com/classproof/classproof/helpers/runner"
)

// An unknown command or flag is one line naming the closest valid one.
func TestClosest(t *testing.T) {
	for in, want := range map[string]string{"rn": "run", "redgren": "redgreen", "gates": "gate", "mutant": "mutants", "docter": "doctor"} {
		if got := closest(in, []string{"run", "redgreen", "mutants", "gate", "bench", "required-specs", "doctor", "lanes", "version", "help"}); got != want {
			t.Errorf("closest(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseFlags(t *testing.T) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.String("target", "", "")
	fs.String("out", "", "")
	if code, ok := parse(fs, []string{"--tagret", "x"}); ok || code != exitUsage {
		t.Errorf("an unknown flag: code %d ok %v", code, ok)
	}
	if code, ok := parse(fs, []string{"--help"}); ok || code != exitPassed {
		t.Errorf("--help: code %d ok %v", code, ok)
	}
	if code, ok := parse(fs, []string{"--target", "t.yaml"}); !ok || code != exitPassed {
		t.Errorf("good flags: code %d ok %v", code, ok)
	}
}

// Every command's help can be printed, and an unknown command is refused.
func TestHelpForEveryCommand(t *testing.T) {
	for _, c := range commands {
		if c.name == "help" {
			continue
		}
		if code := helpCmd(context.Background(), []string{c.name}); code != exitPassed {
			t.Errorf("help %s: exit %d", c.name, code)
		}
	}
	if code := dispatch(context.Background(), []string{"rn"}); code != exitUsage {
		t.Errorf("unknown command: exit %d", code)
	}
}

// A release archive's CLI says which release it is: built with -buildvcs=false from a
// checkout, its build info knows no version, and it once said "a checkout".
func TestVersionFromAReleaseArchive(t *testing.T) {
	old := binaries.DistVersion
	binaries.DistVersion = "v1.2.3"
	defer func() { binaries.DistVersion = old }()
	var code int
	out := captureStdout(t, func() { code = versionCmd(context.Background(), nil) })
	if code != exitPassed || !strings.HasPrefix(string(out), "classproof v1.2.3 (release archive)\n") {
		t.Errorf("exit %d, printed %q", code, out)
	}
}

// mutants merge needs no Go (a merge job, a release archive): with none on PATH it still joins
// parts, here refusing none given, where mutants itself says it needs Go.
func TestMutantsMergeNeedsNoGo(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if code := dispatch(context.Background(), []string{"mutants", "merge"}); code != exitUsage {
		t.Errorf("merge with no parts: exit %d, want 2", code)
	}
	if code := dispatch(context.Background(), []string{"mutants", "merge", "--out", t.TempDir(), "missing.json"}); code != exitUsage {
		t.Errorf("merge of a file that is not there: exit %d, want 2", code)
	}
	if code := dispatch(context.Background(), []string{"mutants", "merge", "--help"}); code != exitPassed {
		t.Errorf("mutants merge --help: exit %d", code)
	}
}

// required-specs exits 1 only when a list and the suites (or a lane's dry run) disagree, as its
// help says; a list or a run it cannot read is 2, never taken for a disagreement.
func TestRequiredSpecsTellsDisagreeingFromUnreadable(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "required.yaml")
	if err := os.WriteFile(bad, []byte("lanes: [this is not a map\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--check", "--file", bad},
		{"--rehearsal", filepath.Join(t.TempDir(), "no-such-run"), "--file", "../../ci/required-specs.yaml"},
	} {
		if code := requiredCmd(context.Background(), args); code != exitUsage {
			t.Errorf("required-specs %q: exit %d, want %d (cannot be read)", args, code, exitUsage)
		}
	}
}

// Every error a command can end in has one exit code, from one table (exitFor), as the commands'
// help says: 1 only where the verdict is no, 2 where the work could not be done.
func TestOneTableMapsEveryErrorToItsExitCode(t *testing.T) {
	for _, c := range []struct {
		what string
		err  error
		want int
	}{
		{"a required-spec list that disagrees", fmt.Errorf("check: %w", gate.Disagreement("a spec missing")), exitFailed},
		{"an interrupted matrix", fmt.Errorf("%w: SIGINT", mutants.ErrInterrupted), exitFailed},
		{"an interrupt", fmt.Errorf("building: %w", context.Canceled), exitFailed},
		{"a leak sweep that could not finish", &runner.EndError{Step: runner.EndSweep, Err: errors.New("ledger unreadable")}, exitFailed},
		{"run.json not written", &runner.EndError{Step: runner.EndReport, Err: errors.New("disk full")}, exitUsage},
		{"a launcher that cannot be built", &binaries.LauncherError{Target: "t", Step: binaries.StepBuild, Err: errors.New("exit 1")}, exitUsage},
		{"a manifest that cannot be read", errors.New("target manifest x.yaml: no such file"), exitUsage},
		{"no error", nil, exitPassed},
	} {
		if got := exitFor(c.err); got != c.want {
			t.Errorf("%s (%v): exit %d, want %d", c.what, c.err, got, c.want)
		}
	}
}

// {repo} is the repository that holds the manifest, not the one the command started in; a
// manifest in a subfolder of a larger repository gets that repository's root, said in a line.
func TestRepoIsTheManifestsRepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	root, _ = filepath.EvalSymlinks(root)
	sub := filepath.Join(root, "tools", "mylauncher")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	var note bytes.Buffer
	got, err := repoFor("", filepath.Join(sub, "classproof.yaml"), &note)
	if err != nil || got != root || !strings.Contains(note.String(), "in its subfolder tools/mylauncher") {
		t.Errorf("nested: %q %v, note %q", got, err, note.String())
	}
	note.Reset()
	if got, err := repoFor("", filepath.Join(root, "classproof.yaml"), &note); err != nil || got != root || note.Len() != 0 {
		t.Errorf("at the root: %q %v, note %q", got, err, note.String())
	}
	if got, err := repoFor(sub, filepath.Join(sub, "classproof.yaml"), &note); err != nil || got != sub {
		t.Errorf("--repo given: %q %v", got, err)
	}
}

// A flag that several commands take means one thing and says so in one text: every command's
// help gives --target, --repo, --var and the other shared run flags the same usage (--out and
// --timeout say what each command writes and bounds).
func TestASharedFlagHasOneUsageText(t *testing.T) {
	shared := []string{"target", "repo", "var", "lane", "suite", "procs", "focus", "label-filter"}
	seen := map[string]map[string][]string{} // flag -> usage -> commands
	for _, c := range commands {
		if c.name == "help" || c.name == "version" {
			continue
		}
		help := captureStdout(t, func() { c.run(context.Background(), []string{"--help"}) })
		for name, usage := range flagUsages(help) {
			if !slices.Contains(shared, name) {
				continue
			}
			if seen[name] == nil {
				seen[name] = map[string][]string{}
			}
			seen[name][usage] = append(seen[name][usage], c.name)
		}
	}
	for _, name := range []string{"target", "repo", "var"} {
		if len(seen[name]) == 0 {
			t.Errorf("no command's help gives --%s", name)
		}
	}
	for name, usages := range seen {
		if len(usages) > 1 {
			t.Errorf("--%s has %d usage texts: %v", name, len(usages), usages)
		}
	}
	for _, c := range []string{"run", "redgreen", "bisect", "mutants", "doctor", "bench"} {
		if !slices.ContainsFunc(slices.Collect(maps.Values(seen["repo"])), func(cmds []string) bool { return slices.Contains(cmds, c) }) {
			t.Errorf("%s has no --repo: %v", c, seen["repo"])
		}
	}
}

// flagUsages is each flag's usage in a help flag.PrintDefaults wrote ("  -name type" then
// "    \tusage" lines), without its "(default ...)".
func flagUsages(help string) map[string]string {
	out := map[string]string{}
	name := ""
	for _, l := range strings.Split(help, "\n") {
		switch {
		case strings.HasPrefix(l, "  -"):
			name, _, _ = strings.Cut(strings.TrimPrefix(l, "  -"), " ")
		case strings.HasPrefix(l, "    \t") && name != "":
			out[name] = strings.TrimSpace(out[name] + " " + strings.TrimPrefix(l, "    \t"))
		default:
			name = ""
		}
	}
	for n, u := range out {
		if i := strings.LastIndex(u, " (default "); i >= 0 {
			out[n] = u[:i]
		}
	}
	return out
}

// captureStdout is what f prints on the standard output.
func captureStdout(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	done := make(chan []byte)
	go func() { b, _ := io.ReadAll(r); done <- b }()
	f()
	os.Stdout = stdout
	w.Close()
	return string(<-done)
}
