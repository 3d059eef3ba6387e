package redgreen

import (
	"strings"
	"testing"

	"github.com/classproof/classproof/helpers/report"
)

func judgeRun(specs ...report.Spec) *report.Run { return &report.Run{Specs: specs} }

func sel(t *testing.T, focus string) *Selection {
	s := &Selection{Focus: focus}
	if err := s.Compile(); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestProveNeedsAnAssertionOnRed(t *testing.T) {
	green := judgeRun(report.Spec{Name: "a starts at background", State: "passed"}, report.Spec{Name: "b keeps the daemon", State: "passed"})
	cases := map[string]struct {
		red  report.Spec
		want string
	}{
		"assertion":  {report.Spec{Name: "a starts at background", State: "failed", InSpec: true, Reason: "FAIL direct harness pid 1"}, "proven"},
		"setup":      {report.Spec{Name: "a starts at background", State: "failed", FailNode: "BeforeEach", Reason: "daemon did not start"}, "setup failed"},
		"timeout":    {report.Spec{Name: "a starts at background", State: "timedout"}, "timed out on red"},
		"panic":      {report.Spec{Name: "a starts at background", State: "panicked", Reason: "nil map"}, "panicked on red"},
		"skip":       {report.Spec{Name: "a starts at background", State: "skipped", Reason: "needs darwin"}, "skipped on red: needs darwin"},
		"still pass": {report.Spec{Name: "a starts at background", State: "passed"}, "does not catch"},
	}
	for name, c := range cases {
		v := Judge(sel(t, "at background"), judgeRun(c.red, report.Spec{Name: "b keeps the daemon", State: "passed"}), green, nil)
		if !strings.Contains(v.Reason, c.want) || v.Proven != (c.want == "proven") {
			t.Errorf("%s: %q", name, v.Reason)
		}
	}
}

func TestProveRefusesSkipsOnGreenRegressionsAndFlakyRepeats(t *testing.T) {
	red := judgeRun(report.Spec{Name: "a starts at background", State: "failed", InSpec: true}, report.Spec{Name: "b keeps the daemon", State: "passed"})
	skip := judgeRun(report.Spec{Name: "a starts at background", State: "skipped", Reason: "no host"}, report.Spec{Name: "b keeps the daemon", State: "passed"})
	if v := Judge(sel(t, "background"), red, skip, nil); v.Proven || !strings.Contains(v.Reason, "skipped on green") {
		t.Errorf("skip on green: %q", v.Reason)
	}
	regress := judgeRun(report.Spec{Name: "a starts at background", State: "passed"}, report.Spec{Name: "b keeps the daemon", State: "failed"})
	if v := Judge(sel(t, "background"), red, regress, nil); v.Proven || len(v.Regressions) != 1 {
		t.Errorf("regression: %q %v", v.Reason, v.Regressions)
	}
	good := judgeRun(report.Spec{Name: "a starts at background", State: "passed"}, report.Spec{Name: "b keeps the daemon", State: "passed"})
	flaky := judgeRun(report.Spec{Name: "a starts at background", State: "failed"}, report.Spec{Name: "b keeps the daemon", State: "passed"})
	if v := Judge(sel(t, "background"), red, good, []*report.Run{good, flaky}); v.Proven || !strings.Contains(v.Reason, "green repeat 2") {
		t.Errorf("flaky repeat: %q", v.Reason)
	}
	if v := Judge(sel(t, "nothing matches this"), red, good, nil); v.Proven || !strings.Contains(v.Reason, "matches no spec") {
		t.Errorf("empty selection: %q", v.Reason)
	}
	if err := (&Selection{}).Compile(); err == nil {
		t.Error("an empty selection compiled")
	}
}

// report.FirstLine is what the gate, the verdicts and the receipts show of a failure: Gomega's two-line
// headers must not hide the error itself (a CI log once read only "Unexpected error: …").
func TestFirstLineKeepsTheErrorBehindAGomegaHeader(t *testing.T) {
	cases := map[string]string{
		"Unexpected error:\n    <*errors.errorString | 0x1c3700ccc490>: \n    boom here\n    {s: \"boom here\"}\noccurred": "Unexpected error: boom here …",
		"Expected success, but got an error:\n    <*errors.errorString | 0x1c3700ccc700>: \n    x\n    {s: \"x\"}":         "Expected success, but got an error: x …",
		"FAIL direct harness pid 12: ps cls TS\nexpected IDL":                                                              "FAIL direct harness pid 12: ps cls TS …",
		"one line": "one line",
	}
	for in, want := range cases {
		if got := report.FirstLine(in); got != want {
			t.Errorf("report.FirstLine(%q) = %q, want %q", in, got, want)
		}
	}
}
