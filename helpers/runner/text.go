package runner

import (
	"fmt"
	"strings"

	"github.com/classproof/classproof/helpers/base/limits"
)

// Text is what a run says when it ends: its summary (or why it wrote no report), each leak,
// refused ledger line and lane problem, what contained it, where the reports are, and its counts.
func (r *Result) Text(dryRun bool) string {
	var b strings.Builder
	b.WriteString("\n")
	switch {
	case r.Run != nil && dryRun:
		c := r.Run.Count()
		fmt.Fprintf(&b, "classproof: dry run of lane %s: %d specs selected, %d left out by the filter; nothing was executed, nothing is proved\n", r.Lane, c.Ran, c.Filtered)
	case r.Run != nil:
		b.WriteString(r.Run.Summary(r.Filter))
	default:
		b.WriteString("classproof: no report was written (the run stopped before Ginkgo reported)\n")
		if r.Stopped != "" {
			b.WriteString("classproof: it stopped: " + r.Stopped + "\n")
		}
	}
	for _, l := range r.Leaks {
		fmt.Fprintf(&b, "LEAK: %s was still alive after the run (killed now)\n", l)
	}
	for _, l := range r.Refused {
		fmt.Fprintf(&b, "REFUSED LEDGER LINE: %s\n", l)
	}
	for _, l := range r.Left {
		fmt.Fprintf(&b, "LEFT BEHIND: %s\n", l)
	}
	for _, p := range r.Problems {
		fmt.Fprintf(&b, "FAILED LANE: %s\n", p)
	}
	if r.Containment != "" {
		fmt.Fprintf(&b, "containment: %s\n", r.Containment)
	}
	if r.LedgerAppendOnly != "" {
		fmt.Fprintf(&b, "ledger append-only: %s\n", r.LedgerAppendOnly)
	}
	if r.LedgerChannel != "" {
		fmt.Fprintf(&b, "ledger channel: %s\n", r.LedgerChannel)
	}
	if r.Sandbox.Kind != "" {
		fmt.Fprintf(&b, "sandbox: %s\n", r.Sandbox)
		fmt.Fprintf(&b, "launcher identity: %s\n", r.Identity)
		fmt.Fprintf(&b, "launcher bounds: %s\n", r.Limits.InForce(r.Identity))
		if r.Identity.PerRun {
			fmt.Fprintf(&b, "launcher peak: %d processes and threads and %s held at once (sampled every %v)\n",
				r.Peak.Tasks, limits.Size(r.Peak.RSSBytes), limits.Interval)
		}
	}
	fmt.Fprintf(&b, "reports: %s, %s (%.1fs)\n", r.ReportPath, r.JUnitPath, r.Duration.Seconds())
	if r.Run != nil && !dryRun {
		c := r.Run.Count()
		fmt.Fprintf(&b, "classproof: %d passed, %d failed, %d skipped\n", c.Passed, c.Failed, c.Skipped)
	}
	return b.String()
}
