package report

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/classproof/classproof/helpers/base/contract"
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

// The summary accounts for every spec that did not simply pass, each in its own section, and
// prints a section only when it has something in it.
func TestSummaryAccountsForEverySpec(t *testing.T) {
	r := &Run{Specs: []Spec{
		{Name: "passes", State: "passed"},
		{Name: "fails", State: "failed", Location: "a_test.go:9", Reason: "ps said TS"},
		{Name: "was cut off", State: "skipped", NotRun: true},
		{Name: "is pending", State: "pending"},
		{Name: "was skipped", State: "skipped", Reason: "needs a tty"},
		{Name: "needs darwin", State: "skipped", Filtered: true, Labels: []string{"darwin"}},
		{Name: "not asked for", State: "skipped", Filtered: true, Unfocused: true},
	}, Lane: "linux-idle"}
	got := r.Summary("!darwin")
	for _, want := range []string{
		"FAILED fails\n  a_test.go:9\n  ps said TS\n",
		"SKIPPED was cut off\n",
		"PENDING is pending\n",
		"skipped at run time (1):\n  was skipped\n    reason: needs a tty\n",
		"left out before the run by the label filter \"!darwin\":\n  1 labelled darwin: ",
		"    needs darwin\n",
		"left out by the run's --focus or --skip: 1 specs\n",
		"not run: 1 selected specs never started (the run stopped first)\n",
		"specs: 2 ran, 1 passed, 1 failed, 1 skipped at run time, 2 left out by the filter\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "passes") {
		t.Errorf("a passed spec is listed:\n%s", got)
	}
	clean := (&Run{Specs: []Spec{{Name: "passes", State: "passed"}}}).Summary("")
	if want := "specs: 1 ran, 1 passed, 0 failed, 0 skipped at run time, 0 left out by the filter\n"; clean != want {
		t.Errorf("a clean run's summary is\n%q\nwant only\n%q", clean, want)
	}
}

// A suite node is recorded only when it did not pass; a failure says whether it was in the It.
func TestSetupsAndWhereAFailureHappened(t *testing.T) {
	it := func(name string, failedIn types.NodeType) types.SpecReport {
		return types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: name, State: types.SpecStateFailed,
			Failure: types.Failure{Message: "x", FailureNodeType: failedIn}}
	}
	rep := types.Report{SuiteDescription: "cpuclass", SuiteSucceeded: false, SpecReports: []types.SpecReport{
		{LeafNodeType: types.NodeTypeBeforeSuite, State: types.SpecStatePassed},
		{LeafNodeType: types.NodeTypeAfterSuite, State: types.SpecStateFailed, Failure: types.Failure{Message: "cleanup"}},
		it("in the It", types.NodeTypeIt), it("in a BeforeEach", types.NodeTypeBeforeEach),
		{LeafNodeType: types.NodeTypeIt, LeafNodeText: "pending", State: types.SpecStatePending},
	}}
	r, err := FromReports([]types.Report{rep}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Setups) != 1 || r.Setups[0].Node != "AfterSuite" || r.Setups[0].Reason != "cleanup" {
		t.Errorf("setups: %+v; want only the failed AfterSuite", r.Setups)
	}
	if !r.Specs[0].InSpec || r.Specs[1].InSpec || r.Specs[1].FailNode != "BeforeEach" {
		t.Errorf("in the It: InSpec %v; in a BeforeEach: InSpec %v, node %q", r.Specs[0].InSpec, r.Specs[1].InSpec, r.Specs[1].FailNode)
	}
	if c := r.Count(); c.Pending != 1 || c.Failed != 2 || c.Ran != 2 {
		t.Errorf("count %+v; want 2 failed (ran) and 1 pending", c)
	}
}

// The lane's own platform label never explains a left-out spec: a linux-idle lane's spec left
// out there was left out for another reason.
func TestALeftOutSpecIsNotBlamedOnItsOwnLane(t *testing.T) {
	r := &Run{Lane: "linux", Reasons: map[string]string{"needs-hosted": "target t declares no host"}}
	if l, why := r.LeftOutReason(Spec{Labels: []string{"linux", "needs-hosted"}}); l != "needs-hosted" || why != "target t declares no host" {
		t.Errorf("blamed on %q (%s)", l, why)
	}
	if l, _ := r.LeftOutReason(Spec{Labels: []string{"darwin", "needs-hosted"}}); l != "darwin" {
		t.Errorf("another platform's spec blamed on %q", l)
	}
}

// A fence is as short as it can be: three backticks unless the text holds a run as long.
func TestFenceIsNoLongerThanItMustBe(t *testing.T) {
	for text, want := range map[string]int{"plain text with no ticks": 3, "a `x` b": 3, "a ```` b": 5} {
		if got := len(Fence(text)) - len(strings.TrimLeft(Fence(text), "`")); got != want {
			t.Errorf("Fence(%q) opens with %d backticks, want %d", text, got, want)
		}
	}
}

// Every process a class matcher judged is evidence in the report, pass or fail, and the lane's
// summary counts which reading decided: a macOS lane that passed on ps pri because the base
// priority was never read says so.
func TestTheSummaryCountsWhichReadingDecided(t *testing.T) {
	entry := func(kind string) types.ReportEntry {
		return types.ReportEntry{Name: contract.ReadingEntry + kind, Value: types.WrapEntryValue("direct harness pid 1: ps pri 4")}
	}
	rep := types.Report{SuiteDescription: "cpuclass", SuiteSucceeded: true, SpecReports: types.SpecReports{
		{LeafNodeType: types.NodeTypeIt, LeafNodeText: "a", State: types.SpecStatePassed,
			ReportEntries: types.ReportEntries{entry(contract.ReadingBasePri), entry(contract.ReadingBasePri), entry(contract.ReadingPsPri)}},
		{LeafNodeType: types.NodeTypeIt, LeafNodeText: "b", State: types.SpecStatePassed, ReportEntries: types.ReportEntries{entry(contract.ReadingPsPri)}},
	}}
	r, err := FromReports([]types.Report{rep}, "")
	if err != nil {
		t.Fatal(err)
	}
	want := "class readings: 4 processes judged (2 decided by base pri, 2 decided by ps pri)"
	if sum := r.Summary(""); !strings.Contains(sum, want) {
		t.Errorf("the summary lacks %q:\n%s", want, sum)
	}
	if r.Specs[0].Readings[contract.ReadingPsPri] != 1 {
		t.Errorf("spec a's readings: %v", r.Specs[0].Readings)
	}
}

// The class calls each launcher instance of a spec made (contract.CallsEntry) add up per spec, by
// call: a kill matrix runs a fault only in the specs where its call came.
func TestASpecsClassCallsAddUp(t *testing.T) {
	calls := func(call string, n int64) types.ReportEntry {
		return types.ReportEntry{Name: contract.CallsEntry + call, Value: types.ReportEntryValue{AsJSON: strconv.FormatInt(n, 10)}} // as read back from a report file
	}
	rep := types.Report{SuiteDescription: "cpuclass", SuiteSucceeded: true, SpecReports: types.SpecReports{
		{LeafNodeType: types.NodeTypeIt, LeafNodeText: "a", State: types.SpecStatePassed,
			ReportEntries: types.ReportEntries{calls("setpriority", 2), calls("ioprio_set", 1), calls("setpriority", 3)}},
		{LeafNodeType: types.NodeTypeIt, LeafNodeText: "b", State: types.SpecStatePassed},
	}}
	r, err := FromReports([]types.Report{rep}, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Specs[0].Calls; got["setpriority"] != 5 || got["ioprio_set"] != 1 || len(got) != 2 {
		t.Errorf("spec a's calls: %v, want setpriority 5 and ioprio_set 1", got)
	}
	if r.Specs[1].Calls != nil {
		t.Errorf("spec b made no call and counted none: %v", r.Specs[1].Calls)
	}
}
