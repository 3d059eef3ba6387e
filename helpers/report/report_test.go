package report

import (
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
)

const linuxIdle = "!darwin && !linux-ignore"

// Reports recorded from real runs of suites/cpuclass (testdata/).
func TestRedRunCountsFailuresAndNamesTheOracle(t *testing.T) {
	r, err := Load("testdata/red-noclass-linux-idle.json", linuxIdle)
	if err != nil {
		t.Fatal(err)
	}
	c := r.Count()
	if c.Ran != 8 || c.Passed != 3 || c.Failed != 5 || c.Filtered != 10 || c.Skipped != 0 {
		t.Fatalf("count %+v", c)
	}
	sum := r.Summary(linuxIdle)
	for _, want := range []string{
		"FAILED cpuclass on Linux, idle mode (SCHED_IDLE + I/O idle) a direct session starts the direct harness and its tool sleep at background class",
		"FAIL direct harness pid",
		"expected 5 SCHED_IDLE",
		"5 labelled darwin: needs macOS",
	} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
}

func TestInterruptedRunIsNotCountedAsFiltered(t *testing.T) {
	r, err := Load("testdata/interrupted-linux-idle.json", linuxIdle)
	if err != nil {
		t.Fatal(err)
	}
	c := r.Count()
	if c.Filtered != 10 || c.NotRun != 7 || c.Failed != 1 {
		t.Fatalf("count %+v", c)
	}
	if !strings.Contains(r.Summary(linuxIdle), "INTERRUPTED") {
		t.Error("summary does not show the interrupted spec")
	}
}

func TestBadFilterIsAnError(t *testing.T) {
	if _, err := Load("testdata/red-noclass-linux-idle.json", "(("); err == nil {
		t.Error("accepted")
	}
}

// The kit's phase entries (recorded from a real run of suites/cpuclass on refmux-seed) come back
// per spec, never more than the spec's own run time.
func TestPhasesAreReadBack(t *testing.T) {
	r, err := Load("testdata/phases-linux-ignore.json", "!darwin && !linux-idle")
	if err != nil {
		t.Fatal(err)
	}
	seen, sessions := 0, 0
	for _, s := range r.Specs {
		if s.Outcome() != Passed {
			continue
		}
		seen++
		var sum time.Duration
		if s.Phases["session"] > 0 {
			sessions++
		}
		for _, p := range []string{"launch", "control", "cleanup"} {
			if s.Phases[p] <= 0 {
				t.Errorf("%s: no %s phase in %v", s.Name, p, s.Phases)
			}
		}
		for _, d := range s.Phases {
			sum += d
		}
		if sum > s.Duration {
			t.Errorf("%s: phases %v add up to more than the spec's %v", s.Name, s.Phases, s.Duration)
		}
	}
	if seen == 0 || sessions == 0 {
		t.Fatalf("in the recorded report: %d passed specs, %d with a session phase", seen, sessions)
	}
}

// Launcher text inside a fence cannot close it: the fence is longer than any backtick run.
func TestFenceCannotBeClosedFromInside(t *testing.T) {
	for _, text := range []string{"plain", "```\n# injected heading\n```", "a ```` b", "`x`"} {
		f := Fence(text)
		lines := strings.Split(strings.TrimRight(f, "\n"), "\n")
		open, close := lines[0], lines[len(lines)-1]
		if open != close || len(open) < 3 || strings.Trim(open, "`") != "" {
			t.Fatalf("%q: fence %q ... %q", text, open, close)
		}
		for _, l := range lines[1 : len(lines)-1] {
			if strings.HasPrefix(strings.TrimSpace(l), open) {
				t.Errorf("%q: inner line %q closes the fence %q", text, l, open)
			}
		}
	}
}

// A run narrowed by --focus records the specs it did not ask for as skipped with no location, as
// it does those an interrupt cut off: only the second kind "never started".
func TestAFocusLeavesOutWhatItDidNotAskFor(t *testing.T) {
	spec := func(text string) types.SpecReport {
		return types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: text, ContainerHierarchyTexts: []string{"cpuclass"}, State: types.SpecStateSkipped}
	}
	rep := types.Report{SuiteDescription: "cpuclass", SuiteSucceeded: false,
		SuiteConfig: types.SuiteConfig{FocusStrings: []string{"starts"}, SkipStrings: []string{"later"}},
		SpecReports: types.SpecReports{spec("starts a direct session"), spec("renices nothing"), spec("starts a later tool")}}
	run, err := FromReports([]types.Report{rep}, "")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Outcome{}
	for _, s := range run.Specs {
		got[s.Name] = s.Outcome()
	}
	want := map[string]Outcome{"cpuclass starts a direct session": NotRun, "cpuclass renices nothing": LeftOut, "cpuclass starts a later tool": LeftOut}
	for n, o := range want {
		if got[n] != o {
			t.Errorf("%s: outcome %v, want %v", n, got[n], o)
		}
	}
	sum := run.Summary("")
	if !strings.Contains(sum, "not run: 1 selected specs never started") || !strings.Contains(sum, "left out by the run's --focus or --skip: 2 specs") {
		t.Errorf("summary:\n%s", sum)
	}
}
