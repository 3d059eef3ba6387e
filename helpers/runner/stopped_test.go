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
