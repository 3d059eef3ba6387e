package mutants

import (
	"fmt"
	"strings"
)

// Markdown is the matrix as a table: variant x lane, with how many specs caught it and which.
func Markdown(m *Matrix) string {
	var b strings.Builder
	if len(m.Rows) == 0 {
		return "no variants\n"
	}
	lanes := m.Baseline
	if m.Focus != "" {
		fmt.Fprintf(&b, "A partial table: every run was focused on the specs matching %q.\n\n", m.Focus)
	}
	b.WriteString("| variant | what it breaks |")
	for _, c := range lanes {
		fmt.Fprintf(&b, " %s |", c.Lane)
	}
	b.WriteString(" caught |\n|---|---|")
	for range lanes {
		b.WriteString("---|")
	}
	b.WriteString("---|\n")
	for _, r := range m.Rows {
		fmt.Fprintf(&b, "| `%s` | %s |", r.Value.Name, r.Value.Breaks)
		if r.LeftOut != "" {
			for range lanes {
				b.WriteString(" - |")
			}
			fmt.Fprintf(&b, " %s |\n", r.LeftOut)
			continue
		}
		for _, c := range r.Cells {
			fmt.Fprintf(&b, " %s |", summary(c, m.UntilCaught, r.Value.Name))
		}
		verdict := "yes"
		if !r.Caught {
			verdict = "**NO**"
		}
		fmt.Fprintf(&b, " %s |\n", verdict)
	}
	b.WriteString(caughtBy(m))
	b.WriteString(TimingMarkdown(m))
	return b.String()
}

// caughtBy lists, per variant, the specs that caught it (or why it did not run).
func caughtBy(m *Matrix) string {
	var b strings.Builder
	if m.UntilCaught {
		b.WriteString("\nThe spec that stopped each variant's lanes (--until-caught: a lane stops at its first catch, and a variant caught on one lane does not run on the lanes after it; the full table, without it, lists every spec that catches each on every lane):\n\n")
	} else {
		b.WriteString("\nSpecs that caught each variant:\n\n")
	}
	for _, r := range m.Rows {
		if r.LeftOut != "" {
			fmt.Fprintf(&b, "- `%s`: %s\n", r.Value.Name, r.LeftOut)
			continue
		}
		fmt.Fprintf(&b, "- `%s`:", r.Value.Name)
		seen := map[string]bool{}
		var names []string
		for _, c := range r.Cells {
			for _, n := range c.CaughtBy {
				if !seen[n] {
					seen[n] = true
					names = append(names, n)
				}
			}
		}
		if len(names) == 0 {
			b.WriteString(" none\n")
			continue
		}
		b.WriteString("\n")
		for _, n := range names {
			fmt.Fprintf(&b, "  - %s\n", n)
		}
	}
	return b.String()
}

func summary(c Cell, untilCaught bool, value string) string {
	if c.NotRun != "" {
		return "not run: " + c.NotRun
	}
	if c.NotFired {
		if len(c.CaughtBy) > 0 {
			// the fault did nothing, yet specs failed: shown, never hidden behind the row's "-"
			return fmt.Sprintf("never fired (%d specs failed anyway)", len(c.CaughtBy))
		}
		if c.Probed < 0 {
			return "never fired (the probe saw no call: not run)"
		}
		return "never fired"
	}
	s := fmt.Sprintf("%d specs", len(c.CaughtBy))
	if untilCaught {
		s = "not caught"
		switch {
		case c.First:
			s = "caught (a first spec)"
		case len(c.CaughtBy) > 0:
			s = "caught"
		}
	}
	if len(c.Broken) > 0 {
		s += fmt.Sprintf(" (+%d broke setup)", len(c.Broken))
	}
	if c.Probed > 0 {
		s += fmt.Sprintf(" of %d run, %s", c.Probed, where(value))
	}
	return s
}
