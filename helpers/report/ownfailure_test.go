package report

import (
	"strings"
	"testing"
)

// Only a failure in the It proves a promise broken; every other outcome says what it was, on the
// side named, and a run's specs are found by name (none for a nil run).
func TestOwnFailureIsAnAssertionInTheSpec(t *testing.T) {
	for _, c := range []struct {
		s      Spec
		proves bool
		why    string
	}{
		{Spec{State: "failed", InSpec: true, Reason: "FAIL direct harness pid 1"}, true, ""},
		{Spec{State: "failed", FailNode: "BeforeEach", Reason: "daemon did not start\nmore"}, false, "failed on red in BeforeEach, not in the spec (setup failed): daemon did not start …"},
		{Spec{State: "passed"}, false, "passed on red"},
		{Spec{State: "skipped", Filtered: true}, false, "filtered out on red"},
		{Spec{State: "skipped", Reason: "needs darwin"}, false, "skipped on red: needs darwin"},
		{Spec{State: "timedout"}, false, "timed out on red: a timeout is not an assertion"},
		{Spec{State: "panicked", Reason: "nil map"}, false, "panicked on red: nil map"},
		{Spec{State: "interrupted"}, false, "interrupted on red"},
	} {
		proves, why := c.s.OwnFailure("on red")
		if proves != c.proves || why != c.why {
			t.Errorf("%+v: %v %q, want %v %q", c.s, proves, why, c.proves, c.why)
		}
	}
	r := &Run{Specs: []Spec{{Name: "a", State: "passed"}, {Name: "b", State: "failed"}}}
	if m := r.ByName(); len(m) != 2 || m["b"].State != "failed" || m["a"].State != "passed" {
		t.Errorf("ByName: %v", m)
	}
	var none *Run
	if m := none.ByName(); m == nil || len(m) != 0 {
		t.Errorf("ByName of no run: %v, want an empty map", m)
	}
	if got := LastLines("a\nb\nc\n", 2); !strings.HasPrefix(got, "b | c") || LastLines("a", 3) != "a" {
		t.Errorf("LastLines: %q", got)
	}
}
