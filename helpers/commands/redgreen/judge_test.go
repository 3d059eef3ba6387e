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
		"still pass": {report.Spec{Name: "a starts at background", State: "passed"}, "the red commit leaves this promise intact"},
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
}

// With no selection the proof is the fail-to-pass set: at least one spec failing on red by its
// own assertion and passing on green, and no spec that passed on red failing on green. What
// failed on both sides is listed as broken and does not block; a regression does.
func TestWithNoSelectionTheFailToPassSetIsTheProof(t *testing.T) {
	spec := func(name, state string, inSpec bool) report.Spec {
		return report.Spec{Name: name, State: state, InSpec: inSpec, Reason: "FAIL " + name}
	}
	red := judgeRun(spec("direct starts at background", "failed", true), spec("hosted starts at background", "passed", false),
		spec("config round-trips", "failed", true), spec("old spec", "passed", false))
	green := judgeRun(spec("direct starts at background", "passed", false), spec("hosted starts at background", "passed", false),
		spec("config round-trips", "failed", true), spec("new spec", "failed", true))
	all := &Selection{}
	if err := all.Compile(); err != nil {
		t.Fatalf("an empty selection is the whole lane: %v", err)
	}
	v := Judge(all, red, green, nil)
	if !v.Proven || !strings.HasPrefix(v.Reason, "proven: 1 spec(s) fail on red and pass on green, 1 pass on both") {
		t.Fatalf("a fix of the direct path only: %q", v.Reason)
	}
	if strings.Join(v.FailToPass, ",") != "direct starts at background" || strings.Join(v.PassedBoth, ",") != "hosted starts at background" {
		t.Errorf("fail-to-pass %v, passed on both %v", v.FailToPass, v.PassedBoth)
	}
	broken := strings.Join(v.Broken, "\n")
	for _, want := range []string{"config round-trips: failed on red, failed on green", "new spec: absent on red, failed on green", "old spec: passed on red, absent on green"} {
		if !strings.Contains(broken, want) {
			t.Errorf("broken lacks %q: %v", want, v.Broken)
		}
	}
	regress := judgeRun(spec("direct starts at background", "passed", false), spec("hosted starts at background", "failed", true))
	if v := Judge(all, red, regress, nil); v.Proven || len(v.Regressions) != 1 {
		t.Errorf("hosted passed on red and fails on green, yet: %q %v", v.Reason, v.Regressions)
	}
	nothing := judgeRun(spec("direct starts at background", "failed", true), spec("hosted starts at background", "passed", false))
	if v := Judge(all, red, nothing, nil); v.Proven || !strings.Contains(v.Reason, "the fail-to-pass set is empty") {
		t.Errorf("a green that fixes nothing: %q", v.Reason)
	}
	// A selection must lie within the fail-to-pass set: a spec red leaves intact is named.
	v = Judge(sel(t, "starts at background"), red, green, nil)
	if v.Proven || !strings.Contains(v.Reason, `"hosted starts at background": passed on red: the red commit leaves this promise intact`) ||
		!strings.Contains(v.Reason, "the fail-to-pass set is 1 spec(s): direct starts at background") {
		t.Errorf("a selection reaching past the fix: %q", v.Reason)
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

// A label filter narrows the selection as --label-filter does in ginkgo.
func TestALabelFilterSelects(t *testing.T) {
	s := &Selection{LabelFilter: "conv-fold-case"}
	if err := s.Compile(); err != nil {
		t.Fatal(err)
	}
	if !s.Selects(report.Spec{Name: "folds case", Labels: []string{"conv-fold-case"}}) || s.Selects(report.Spec{Name: "other", Labels: []string{"linux"}}) {
		t.Error("--label-filter conv-fold-case selects the wrong specs")
	}
	if err := (&Selection{LabelFilter: "a &&"}).Compile(); err == nil || !strings.Contains(err.Error(), `--label-filter "a &&"`) {
		t.Errorf("a bad label filter: %v", err)
	}
}

// A selected proof that fails with an empty fail-to-pass set says nothing about that set; a spec
// outside the selection is "also fixed" only when it failed on red and passes on green.
func TestTheReasonNamesOnlyWhatIsThere(t *testing.T) {
	red := judgeRun(report.Spec{Name: "a starts at background", State: "passed"},
		report.Spec{Name: "c reads the config", State: "failed", FailNode: "BeforeEach", Reason: "no config dir"})
	green := judgeRun(report.Spec{Name: "a starts at background", State: "passed"},
		report.Spec{Name: "c reads the config", State: "passed"}, report.Spec{Name: "d is new", State: "passed"})
	v := Judge(sel(t, "at background"), red, green, nil)
	if v.Proven || strings.Contains(v.Reason, "fail-to-pass set is") {
		t.Errorf("no spec fails to pass, yet: %q", v.Reason)
	}
	if len(v.AlsoFixed) != 1 || !strings.HasPrefix(v.AlsoFixed[0], "c reads the config: failed on red") {
		t.Errorf("also fixed: %v; want only the spec that failed on red and passes on green", v.AlsoFixed)
	}
}
