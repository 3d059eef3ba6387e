package report

// Outcome is where one spec ended up in a run. It is the one rule that sorts specs: the summary,
// the gate, the red/green judge, the kill matrix and the lane check all read it.
type Outcome int

const (
	LeftOut Outcome = iota // not selected: the lane's or the target's filter, a focus
	NotRun                 // selected, but the run stopped before it started
	Skipped                // skipped at run time (Skip), with its reason
	Pending
	Passed
	Failed // failed, panicked, timed out, interrupted, aborted
)

// Outcome sorts the spec.
func (s Spec) Outcome() Outcome {
	switch {
	case s.Filtered:
		return LeftOut
	case s.NotRun:
		return NotRun
	case s.State == "skipped":
		return Skipped
	case s.State == "pending":
		return Pending
	case s.State == "passed":
		return Passed
	}
	return Failed
}

// Count is how many specs are in each bucket.
type Count struct {
	Ran, Passed, Failed, Skipped, Filtered, NotRun, Pending int
}

// Count tallies the run. Ran counts specs that started; a runtime skip counts as skipped, not ran.
func (r *Run) Count() Count {
	var c Count
	for _, s := range r.Specs {
		switch s.Outcome() {
		case LeftOut:
			c.Filtered++
		case NotRun:
			c.NotRun++
		case Skipped:
			c.Skipped++
		case Pending:
			c.Pending++
		case Passed:
			c.Ran++
			c.Passed++
		case Failed:
			c.Ran++
			c.Failed++
		}
	}
	return c
}
