package actions

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/classproof/classproof/helpers/report"
)

// GitHub's workflow-command rules: in data, % CR LF are escaped; in a property, also : and ,.
func TestEscaping(t *testing.T) {
	if got := EscapeData("50% of\r\nspecs: a, b"); got != "50%25 of%0D%0Aspecs: a, b" {
		t.Errorf("data: %q", got)
	}
	if got := EscapeProperty("cpuclass: a, b 100%\n"); got != "cpuclass%3A a%2C b 100%25%0A" {
		t.Errorf("property: %q", got)
	}
	var b bytes.Buffer
	Error(&b, "resolve: rows, 27", "FAIL direct harness pid 1: ps cls TS\nexpected IDL")
	if want := "::error title=resolve%3A rows%2C 27::FAIL direct harness pid 1: ps cls TS%0Aexpected IDL\n"; b.String() != want {
		t.Errorf("annotation %q, want %q", b.String(), want)
	}
}

func TestSummaryOnlyInActions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "summary.md")
	t.Setenv("GITHUB_STEP_SUMMARY", path)
	t.Setenv("GITHUB_ACTIONS", "")
	if err := Summary("# x"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("a summary was written outside Actions")
	}
	t.Setenv("GITHUB_ACTIONS", "true")
	Summary("# one")
	Summary("# two")
	if b, _ := os.ReadFile(path); string(b) != "# one\n# two\n" {
		t.Errorf("summary %q", b)
	}
}

// A launcher's output cannot act as a workflow command; the kit's own annotations still do.
func TestGuardFencesLauncherOutput(t *testing.T) {
	t.Setenv("GITHUB_ACTIONS", "true")
	var b bytes.Buffer
	g := Stop(&b)
	hostile := "::stop-commands::TOKEN\n  ::add-mask::classproof\n::warning file=x::hello\n::TOKEN::\n::error::fake\n"
	b.WriteString(hostile)
	g.Error("cpuclass: a spec", "FAIL direct harness pid 1: ps cls TS")
	b.WriteString(hostile)
	g.Resume()
	got := Acted(b.String())
	want := []string{"error title=cpuclass%3A a spec::FAIL direct harness pid 1: ps cls TS"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the runner would act on %q, want only the kit's annotation %q\nlog:\n%s", got, want, b.String())
	}
	if strings.Contains(b.String(), "::stop-commands::classproof-") == false {
		t.Error("no stop-commands with the kit's token")
	}
	// Unguarded, the launcher's lines are commands, and its stop silences the kit's annotation.
	if got := Acted("  ::add-mask::classproof\n::warning file=x::hello\n"); len(got) != 2 {
		t.Errorf("the simulated runner took %q, want the launcher's two commands", got)
	}
	if got := Acted("::stop-commands::TOKEN\n::error::kit\n"); len(got) != 0 {
		t.Errorf("the simulated runner took %q after the launcher's stop", got)
	}
}

func TestGuardWritesNothingOutsideActions(t *testing.T) {
	t.Setenv("GITHUB_ACTIONS", "")
	var b bytes.Buffer
	g := Stop(&b)
	g.Error("t", "m")
	g.Resume()
	if b.Len() != 0 {
		t.Errorf("outside Actions it wrote %q", b.String())
	}
}

// A lane's problems carry a launcher's words (how a run stopped, its last lines): in the step
// summary they are a code span, never Markdown of their own.
func TestLaneSummaryPutsProblemsInCode(t *testing.T) {
	problem := "stopped: the launcher said **proven** <!-- and the rest is hidden"
	md := LaneSummary("linux-idle", "refmux", &report.Run{}, []string{problem}, "cgroup v2 /x", "none: test")
	if !strings.Contains(md, "**FAILED LANE**: "+report.Code(problem)+"\n") {
		t.Errorf("the problem is not one code span:\n%s", md)
	}
}
