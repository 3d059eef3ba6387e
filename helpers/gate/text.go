package gate

import (
	"fmt"
	"strings"
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
