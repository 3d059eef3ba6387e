package gate

import (
	"fmt"
	"strings"

	"github.com/classproof/classproof/helpers/report"
)

// Closing is what the gate says last: PASS or BLOCKED with every reason, then the counts over
// every lane, which CI logs and a release manager read.
func (v *Verdict) Closing() string {
	var passed, failed, skipped int
	for _, l := range v.Lanes {
		passed, failed, skipped = passed+l.Count.Passed, failed+l.Count.Failed, skipped+l.Count.Skipped
	}
	var b strings.Builder
	if v.Pass {
		fmt.Fprintf(&b, "\nclassproof gate: PASS (%d lane reports)\n", len(v.Lanes))
	} else {
		fmt.Fprintf(&b, "\nclassproof gate: BLOCKED (%d reasons):\n", len(v.Reasons))
		for _, r := range v.Reasons {
			b.WriteString("  - " + r + "\n")
		}
	}
	fmt.Fprintf(&b, "gate: %d passed, %d failed, %d skipped\n", passed, failed, skipped)
	return b.String()
}

// Table is the gate's per-lane summary, as it prints it.
func (v *Verdict) Table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-14s %-32s %5s %6s %6s %7s %9s  %s\n", "lane", "report", "ran", "passed", "failed", "skipped", "required", "verdict")
	for _, l := range v.Lanes {
		verdict := "ok"
		if len(l.Problems) > 0 {
			verdict = fmt.Sprintf("FAIL (%d)", len(l.Problems))
		}
		fmt.Fprintf(&b, "%-14s %-32s %5d %6d %6d %7d %4d/%-4d  %s\n", l.Name, short(l.Dir), l.Count.Ran, l.Count.Passed, l.Count.Failed, l.Count.Skipped, l.Present, l.Required, verdict)
		for _, s := range l.Skips {
			fmt.Fprintf(&b, "  skipped: %s\n    reason: %s\n", s.Name, report.FirstLine(s.Reason))
		}
	}
	return b.String()
}

func short(s string) string {
	if len(s) > 32 {
		return "…" + s[len(s)-31:]
	}
	return s
}
