package report

import "fmt"

// OwnFailure says whether s failed by its own assertion (in the It, not in its setup), the only
// failure that proves a promise broken; if not, what it did instead, with on ("on red", "on
// this commit") after the state. redgreen's red side and bisect's steps judge by it.
func (s Spec) OwnFailure(on string) (bool, string) {
	switch s.State {
	case "failed":
		if s.InSpec {
			return true, ""
		}
		return false, fmt.Sprintf("failed %s in %s, not in the spec (setup failed): %s", on, s.FailNode, FirstLine(s.Reason))
	case "passed":
		return false, "passed " + on
	case "skipped":
		if s.Filtered {
			return false, "filtered out " + on
		}
		return false, "skipped " + on + ": " + FirstLine(s.Reason)
	case "timedout":
		return false, "timed out " + on + ": a timeout is not an assertion"
	case "panicked":
		return false, "panicked " + on + ": " + FirstLine(s.Reason)
	}
	return false, s.State + " " + on
}

// ByName is r's specs by name; empty for a nil run.
func (r *Run) ByName() map[string]Spec {
	m := map[string]Spec{}
	if r == nil {
		return m
	}
	for _, s := range r.Specs {
		m[s.Name] = s
	}
	return m
}
