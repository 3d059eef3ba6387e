package runner

import (
	"errors"
	"strings"
	"testing"

	"github.com/classproof/classproof/helpers/report"
)

// A run that ended with no report says how Ginkgo ended and what it printed last.
func TestARunWithNoReportSaysWhyItStopped(t *testing.T) {
	out := strings.Repeat("line\n", 40) + "fatal error: runtime: out of memory\n"
	why := stoppedBecause(&Result{GinkgoErr: errors.New("signal: killed")}, out)
	for _, want := range []string{"ginkgo signal: killed", "its last output:", "fatal error: runtime: out of memory"} {
		if !strings.Contains(why, want) {
			t.Errorf("%q lacks %q", why, want)
		}
	}
	if n := strings.Count(why, "line"); n > 12 {
		t.Errorf("%d lines of output quoted; the last 12 say enough", n)
	}
	if why := stoppedBecause(&Result{Interrupted: true}, ""); !strings.Contains(why, "after an interrupt") {
		t.Errorf("an interrupted run: %q", why)
	}
}

// A suite that crashed before its specs (out of memory, a killed parallel process) is named as
// such, not as a filter that left every spec out.
func TestACrashedSuiteIsNotCalledAnEmptyFilter(t *testing.T) {
	crashed := &report.Run{Specs: []report.Spec{{Name: "a", State: "skipped", NotRun: true}}, FailedSuites: []string{"cpuclass"}}
	p := laneProblems(Options{}, crashed, "linux-idle", "!darwin")
	if len(p) != 1 || !strings.Contains(p[0], "suite(s) cpuclass did not succeed") || strings.Contains(p[0], "left every spec out") {
		t.Errorf("a crashed suite: %q", p)
	}
	empty := &report.Run{Specs: []report.Spec{{Name: "a", State: "skipped", Filtered: true}}}
	if p := laneProblems(Options{}, empty, "linux-idle", "!darwin"); len(p) != 1 || !strings.Contains(p[0], "left every spec out") {
		t.Errorf("a filter that selects nothing: %q", p)
	}
}

// What a run says at its end names each leak, refusal and lane problem, and counts only a real run.
func TestARunsClosingTextNamesEveryProblem(t *testing.T) {
	r := &Result{Lane: "linux-idle", Leaks: []string{"sleep pid 7"}, Refused: []string{"line 3"}, Problems: []string{"ran none of its platform's specs"},
		ReportPath: "out/report.json", JUnitPath: "out/junit.xml"}
	text := r.Text(false)
	for _, want := range []string{"no report was written", "LEAK: sleep pid 7 was still alive", "REFUSED LEDGER LINE: line 3", "FAILED LANE: ran none of its platform's specs", "reports: out/report.json, out/junit.xml"} {
		if !strings.Contains(text, want) {
			t.Errorf("%q lacks %q", text, want)
		}
	}
	r.Run = &report.Run{Specs: []report.Spec{{Name: "a", State: "passed"}}}
	if text := r.Text(true); !strings.Contains(text, "dry run of lane linux-idle: 1 specs selected") || strings.Contains(text, "passed, 0 failed") {
		t.Errorf("a dry run: %q", text)
	}
}
