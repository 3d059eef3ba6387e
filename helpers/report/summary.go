package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/classproof/classproof/helpers/lane"
)

// Summary is the human account of a run, as `classproof run` prints it.
func (r *Run) Summary(filter string) string {
	var b strings.Builder
	c := r.Count()
	for _, s := range r.Setups {
		fmt.Fprintf(&b, "SETUP %s %s in %s:\n  %s\n", strings.ToUpper(s.State), s.Node, s.Suite, indent(s.Reason))
	}
	for _, s := range r.Specs {
		if o := s.Outcome(); o == Failed || o == NotRun || o == Pending {
			fmt.Fprintf(&b, "%s %s\n  %s\n  %s\n", strings.ToUpper(s.State), s.Name, s.Location, indent(s.Reason))
		}
	}
	r.skippedSummary(&b)
	byLabel := map[string][]string{}
	reasons := map[string]string{}
	unfocused := 0
	for _, s := range r.Specs {
		if s.Outcome() == LeftOut && s.Unfocused {
			unfocused++ // a narrowed run: what it did not ask for is no news
			continue
		}
		if s.Outcome() == LeftOut {
			key, why := r.LeftOutReason(s)
			byLabel[key] = append(byLabel[key], s.Name)
			reasons[key] = why
		}
	}
	if len(byLabel) > 0 {
		fmt.Fprintf(&b, "left out before the run by the label filter %q:\n", filter)
		keys := make([]string, 0, len(byLabel))
		for k := range byLabel {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "  %d labelled %s: %s\n", len(byLabel[k]), k, reasons[k])
			sort.Strings(byLabel[k])
			for _, n := range byLabel[k] {
				fmt.Fprintf(&b, "    %s\n", n)
			}
		}
	}
	if unfocused > 0 {
		fmt.Fprintf(&b, "left out by the run's --focus or --skip: %d specs\n", unfocused)
	}
	if c.NotRun > 0 {
		fmt.Fprintf(&b, "not run: %d selected specs never started (the run stopped first)\n", c.NotRun)
	}
	if readings := r.Readings(); readings != "" {
		fmt.Fprintf(&b, "class readings: %s\n", readings)
	}
	fmt.Fprintf(&b, "specs: %d ran, %d passed, %d failed, %d skipped at run time, %d left out by the filter\n", c.Ran, c.Passed, c.Failed, c.Skipped, c.Filtered)
	return b.String()
}

// LeftOutReason names the label that left a filtered spec out and why: its platform label first
// (the lane), then a capability or convention its target lacks (Reasons), else a narrowed run.
func (r *Run) LeftOutReason(s Spec) (label, reason string) {
	for _, l := range s.Labels {
		if why, ok := lane.Needs(l); ok && l != r.Lane {
			return l, why
		}
	}
	var hits []string
	for _, l := range s.Labels {
		if _, ok := r.Reasons[l]; ok {
			hits = append(hits, l)
		}
	}
	if len(hits) > 0 {
		sort.Strings(hits)
		return hits[0], r.Reasons[hits[0]]
	}
	return "other", "not selected by this run's focus or label filter"
}

// skippedSummary lists every spec skipped at run time with its reason.
func (r *Run) skippedSummary(b *strings.Builder) {
	var skipped []string
	for _, s := range r.Specs {
		if s.Outcome() == Skipped {
			skipped = append(skipped, fmt.Sprintf("  %s\n    reason: %s", s.Name, s.Reason))
		}
	}
	if len(skipped) > 0 {
		fmt.Fprintf(b, "skipped at run time (%d):\n%s\n", len(skipped), strings.Join(skipped, "\n"))
	}
}
