package bisect

import (
	"strings"
	"testing"

	"github.com/classproof/classproof/helpers/report"
	"github.com/classproof/classproof/helpers/runner"
)

// A step's verdict: bad when a spec of the search fails by its own assertion, good when every one
// passed, skipped (git bisect's 125) when one neither passed nor failed so; on --bad every spec
// the run selected is judged, and what passed there is kept (a selection that holds it is refused).
func TestJudgeTellsBadGoodAndSkipped(t *testing.T) {
	run := func(specs ...report.Spec) *runner.Result { return &runner.Result{Run: &report.Run{Specs: specs}} }
	failed := report.Spec{Name: "a", State: "failed", InSpec: true}
	setup := report.Spec{Name: "a", State: "failed", FailNode: "BeforeEach"}
	passed := report.Spec{Name: "a", State: "passed"}
	other := report.Spec{Name: "b", State: "passed"}
	for _, c := range []struct {
		what    string
		res     *runner.Result
		onBad   bool
		verdict string
	}{
		{"the spec fails by its assertion", run(failed, other), false, "bad"},
		{"the spec passes", run(passed, other), false, "good"},
		{"the spec fails in its setup", run(setup, other), false, "skipped"},
		{"the spec did not run", run(other), false, "skipped"},
		{"no report", &runner.Result{Stopped: "killed"}, false, "skipped"},
		{"--bad: one of the selection fails", run(failed, other), true, "bad"},
		{"--bad: all of the selection pass", run(passed, other), true, "good"},
	} {
		var st Step
		judge(&st, c.res, nil, []string{"a"}, c.onBad)
		if st.Verdict != c.verdict {
			t.Errorf("%s: verdict %q (%s), want %q", c.what, st.Verdict, st.Why, c.verdict)
		}
		if c.verdict == "skipped" && c.res.Run != nil && !strings.Contains(st.Why, "125") {
			t.Errorf("%s: a skip says why as git bisect's 125: %q", c.what, st.Why)
		}
	}
	var st Step
	judge(&st, run(failed, other), nil, nil, true)
	if len(st.Failed) != 1 || len(st.passed) != 1 || st.passed[0] != "b" {
		t.Errorf("on --bad: failed %v, passed %v; want [a] and [b]", st.Failed, st.passed)
	}
}
