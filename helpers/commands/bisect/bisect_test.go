package bisect

import (
	"strings"
	"testing"
	"time"

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

// The receipt's Reproduce line is written from the flags' table (Args): every flag set away from
// its default, in the table's order. Pinned here so that a move of the table changes no receipt.
func TestReproduceArgsKeepTheirOrder(t *testing.T) {
	f := DefaultFlags()
	if got := f.Args(); len(got) != 0 {
		t.Errorf("the defaults give a command line: %q", got)
	}
	f.Good, f.Bad, f.Targets, f.Lane, f.Suites, f.Procs = "v1", "main", []string{"/m.yaml"}, "linux-idle", []string{"./suites/a"}, 2
	f.Focus, f.LabelFilter, f.Timeout, f.Vars, f.Out, f.Repo = "x", "direct", time.Hour, []string{"a=b"}, "/o", "/r"
	want := "--good v1 --bad main --target /m.yaml --lane linux-idle --suite ./suites/a --procs 2 --focus x --label-filter direct --timeout 1h0m0s --var a=b --out /o --repo /r"
	if got := strings.Join(f.Args(), " "); got != want {
		t.Errorf("Args:\n got %s\nwant %s", got, want)
	}
}
