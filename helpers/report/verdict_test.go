package report

import (
	"strings"
	"testing"
)

func run(specs ...Spec) *Run { return &Run{Specs: specs} }

func sel(t *testing.T, focus string) *Selection {
	s := &Selection{Focus: focus}
	if err := s.Compile(); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestProveNeedsAnAssertionOnRed(t *testing.T) {
	green := run(Spec{Name: "a starts at background", State: "passed"}, Spec{Name: "b keeps the daemon", State: "passed"})
	cases := map[string]struct {
		red  Spec
		want string
	}{
		"assertion":  {Spec{Name: "a starts at background", State: "failed", InSpec: true, Reason: "FAIL direct harness pid 1"}, "proven"},
		"setup":      {Spec{Name: "a starts at background", State: "failed", FailNode: "BeforeEach", Reason: "daemon did not start"}, "setup failed"},
		"timeout":    {Spec{Name: "a starts at background", State: "timedout"}, "timed out on red"},
		"panic":      {Spec{Name: "a starts at background", State: "panicked", Reason: "nil map"}, "panicked on red"},
		"skip":       {Spec{Name: "a starts at background", State: "skipped", Reason: "needs darwin"}, "skipped on red: needs darwin"},
		"still pass": {Spec{Name: "a starts at background", State: "passed"}, "does not catch"},
	}
	for name, c := range cases {
		v := Prove(sel(t, "at background"), run(c.red, Spec{Name: "b keeps the daemon", State: "passed"}), green, nil)
		if !strings.Contains(v.Reason, c.want) || v.Proven != (c.want == "proven") {
			t.Errorf("%s: %q", name, v.Reason)
		}
	}
}

func TestProveRefusesSkipsOnGreenRegressionsAndFlakyRepeats(t *testing.T) {
	red := run(Spec{Name: "a starts at background", State: "failed", InSpec: true}, Spec{Name: "b keeps the daemon", State: "passed"})
	skip := run(Spec{Name: "a starts at background", State: "skipped", Reason: "no host"}, Spec{Name: "b keeps the daemon", State: "passed"})
	if v := Prove(sel(t, "background"), red, skip, nil); v.Proven || !strings.Contains(v.Reason, "skipped on green") {
		t.Errorf("skip on green: %q", v.Reason)
	}
	regress := run(Spec{Name: "a starts at background", State: "passed"}, Spec{Name: "b keeps the daemon", State: "failed"})
	if v := Prove(sel(t, "background"), red, regress, nil); v.Proven || len(v.Regressions) != 1 {
		t.Errorf("regression: %q %v", v.Reason, v.Regressions)
	}
	good := run(Spec{Name: "a starts at background", State: "passed"}, Spec{Name: "b keeps the daemon", State: "passed"})
	flaky := run(Spec{Name: "a starts at background", State: "failed"}, Spec{Name: "b keeps the daemon", State: "passed"})
	if v := Prove(sel(t, "background"), red, good, []*Run{good, flaky}); v.Proven || !strings.Contains(v.Reason, "green repeat 2") {
		t.Errorf("flaky repeat: %q", v.Reason)
	}
	if v := Prove(sel(t, "nothing matches this"), red, good, nil); v.Proven || !strings.Contains(v.Reason, "matches no spec") {
		t.Errorf("empty selection: %q", v.Reason)
	}
	if err := (&Selection{}).Compile(); err == nil {
		t.Error("an empty selection compiled")
	}
}

// FirstLine is what the gate, the verdicts and the receipts show of a failure: Gomega's two-line
// headers must not hide the error itself (a CI log once read only "Unexpected error: …").
func TestFirstLineKeepsTheErrorBehindAGomegaHeader(t *testing.T) {
	cases := map[string]string{
		"Unexpected error:\n    <*errors.errorString | 0x1c3700ccc490>: \n    boom here\n    {s: \"boom here\"}\noccurred": "Unexpected error: boom here …",
		"Expected success, but got an error:\n    <*errors.errorString | 0x1c3700ccc700>: \n    x\n    {s: \"x\"}":         "Expected success, but got an error: x …",
		"FAIL direct harness pid 12: ps cls TS\nexpected IDL":                                                              "FAIL direct harness pid 12: ps cls TS …",
		"one line": "one line",
	}
	for in, want := range cases {
		if got := FirstLine(in); got != want {
			t.Errorf("FirstLine(%q) = %q, want %q", in, got, want)
		}
	}
}
