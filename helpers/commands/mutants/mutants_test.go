package mutants

import (
	"strings"
	"testing"
	"time"

	"github.com/classproof/classproof/helpers/report"
	"github.com/classproof/classproof/helpers/runner"
)

// On an OS where a variant means nothing it is left out with its reason: never run, never
// counted as not caught, and the matrix still says so.
func TestAVariantIsLeftOutWhereItMeansNothing(t *testing.T) {
	vs := []Value{{Name: "noclass", Breaks: "no class"}, {Name: "ignore-applies", Breaks: "applied", OnlyOn: []string{"linux"}, Why: "ignore mode is Linux's"}}
	run, left := plan(vs, "linux")
	if len(run) != 2 || len(left) != 0 {
		t.Fatalf("linux: run %v, left out %v", run, left)
	}
	run, left = plan(vs, "darwin")
	if len(run) != 1 || run[0].Name != "noclass" || len(left) != 1 {
		t.Fatalf("darwin: run %v, left out %v", run, left)
	}
	if want := "left out on darwin: means something only on linux: ignore mode is Linux's"; left[0].LeftOut != want {
		t.Errorf("reason %q, want %q", left[0].LeftOut, want)
	}
	m := &Matrix{OK: true, Baseline: []Cell{{Lane: "darwin", Passed: true}},
		Rows: append([]Row{{Value: run[0], Cells: []Cell{{Lane: "darwin", CaughtBy: []string{"cpuclass: x"}}}, Caught: true}}, left...)}
	if c, n, l := m.Counts(); c != 1 || n != 0 || l != 1 {
		t.Errorf("counts caught %d, not caught %d, left out %d; want 1 0 1", c, n, l)
	}
	md := Markdown(m)
	for _, want := range []string{"| `ignore-applies` | applied | - | left out on darwin: means something only on linux", "| `noclass` | no class | 1 specs | yes |"} {
		if !strings.Contains(md, want) {
			t.Errorf("matrix lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "**NO**") {
		t.Errorf("a left-out variant reads as not caught:\n%s", md)
	}
}

// Where a cell's time went comes from the run's own phases and its specs; the matrix sums it per
// target, the baseline included.
func TestTimingIsReadFromTheRunAndSummedPerTarget(t *testing.T) {
	res := &runner.Result{Phases: map[string]float64{"compile": 500, "preflight": 2000, "ginkgo": 10000, "sweep": 250},
		Run: &report.Run{Specs: []report.Spec{{Duration: 3 * time.Second}, {Duration: 4 * time.Second}}}}
	got := timing(res)
	if want := (Timing{Compile: 0.5, Build: 2, Setup: 3, Specs: 7, Sweep: 0.25}); got != want {
		t.Errorf("timing: %+v, want %+v", got, want)
	}
	c := Cell{Target: "embedded:refmux.yaml", Timing: Timing{Wait: 1, Build: 2, Setup: 3, Specs: 7, Total: 12}}
	m := &Matrix{Baseline: []Cell{c}, Rows: []Row{{Cells: []Cell{c}}}, Wall: 30, Jobs: 2}
	md := TimingMarkdown(m)
	for _, want := range []string{"30 s wall for the whole matrix, 2 side by side", "| `embedded:refmux.yaml` | 2 | 2 | 0 | 4 | 6 | 14 | 0 | 24 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("%q lacks %q", md, want)
		}
	}
}

// An injected fault that no launcher process ever called is neither caught nor missed: its row
// says it never fired and leaves the verdict alone; one that fired on a target counts as any
// variant does, and one that fired and passed is not caught.
func TestAFaultThatNeverFiredIsNeitherCaughtNorMissed(t *testing.T) {
	run := []Value{{Name: InjectPrefix + "setpriority"}, {Name: InjectPrefix + "sched_setattr"}, {Name: InjectPrefix + "ioprio_set"}}
	cells := []Cell{
		{Lane: "linux-idle", Passed: true, NotFired: true}, {Lane: "linux-ignore", Passed: true, NotFired: true},
		{Lane: "linux-idle", CaughtBy: []string{"a direct session"}}, {Lane: "linux-ignore", Passed: true, NotFired: true},
		{Lane: "linux-idle", Passed: true}, {Lane: "linux-ignore", Passed: true, NotFired: true},
	}
	m := assemble(nil, run, nil, 2, cells)
	caught, notCaught, leftOut := m.Counts()
	if caught != 1 || notCaught != 1 || leftOut != 1 || m.OK || !strings.HasPrefix(m.Rows[0].LeftOut, "never fired") {
		t.Errorf("rows %+v: caught %d, not caught %d, left out %d, ok %v; want 1, 1, 1 (never fired), not ok", m.Rows, caught, notCaught, leftOut, m.OK)
	}
	if md := Markdown(m); !strings.Contains(md, "never fired") {
		t.Errorf("the table does not say which fault never fired:\n%s", md)
	}
	if f, b := splitFault(InjectPrefix + "ioprio_set"); f != "ioprio_set" || b != "" {
		t.Errorf("an injected row runs fault %q on build %q; want ioprio_set on the reference", f, b)
	}
	if _, err := Injected([]string{"renice"}); err == nil || !strings.Contains(err.Error(), "renice") {
		t.Errorf("an unknown fault: %v; want it named", err)
	}
}

// "Never fired" is said only of a cell that could have seen the fault: a launcher instance counted
// the calls (none, in any ABI) and its specs ran. A cell whose launcher never started, or whose
// specs all broke in setup, is broken, which fails the matrix, never left out of it; and specs that
// failed in a never-fired cell are shown in its summary.
func TestNeverFiredOnlyWhereTheCellRan(t *testing.T) {
	ran := &report.Run{Specs: []report.Spec{{Name: "a direct session", State: "passed"}}}
	none := &report.Run{Specs: []report.Spec{{Name: "a direct session", NotRun: true}}}
	for _, c := range []struct {
		name     string
		res      runner.Result
		broken   []string
		notFired bool
		says     string
	}{
		{"counted none, specs ran", runner.Result{InjectCounted: true, Run: ran}, nil, true, ""},
		{"counted some", runner.Result{Injected: 3, InjectCounted: true, Run: ran}, nil, false, ""},
		{"no instance counted", runner.Result{Run: ran}, nil, false, "whether it fired is unknown"},
		{"no spec ran", runner.Result{InjectCounted: true, Run: none}, nil, false, "no spec ran"},
		{"setup broke", runner.Result{InjectCounted: true, Run: ran}, []string{"BeforeSuite in cpuclass"}, false, "BeforeSuite"},
	} {
		notFired, broken := firing("setpriority", &c.res, c.broken)
		if notFired != c.notFired || (c.says == "") != (len(broken) == 0) || c.says != "" && !strings.Contains(strings.Join(broken, "; "), c.says) {
			t.Errorf("%s: never fired %v, broken %q; want %v, saying %q", c.name, notFired, broken, c.notFired, c.says)
		}
	}
	m := assemble(nil, []Value{{Name: InjectPrefix + "setpriority"}}, nil, 1, []Cell{{Lane: "linux-idle", Broken: []string{"no launcher instance counted the fault's calls"}}})
	if m.OK {
		t.Errorf("a matrix with a cell that cannot tell whether its fault fired is OK: %+v", m.Rows)
	}
	if s := summary(Cell{NotFired: true, CaughtBy: []string{"x"}}, false, InjectPrefix+"setpriority"); !strings.Contains(s, "1 specs failed anyway") {
		t.Errorf("a never-fired cell whose spec failed reads %q", s)
	}
}
