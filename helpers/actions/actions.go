// Package actions puts results where GitHub Actions users look: an `::error` annotation per failed
// spec, and a Markdown summary appended to $GITHUB_STEP_SUMMARY. Outside Actions
// (GITHUB_ACTIONS is not "true") it writes nothing.
//
// CLI side: it must not import the Ginkgo DSL, Gomega, helpers/kit or fixtures/ (ci/layers.rules).
package actions

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/classproof/classproof/helpers/report"
)

// On says whether this process runs as a GitHub Actions step.
func On() bool { return os.Getenv("GITHUB_ACTIONS") == "true" }

// EscapeData escapes a workflow command's message: %, CR and LF (GitHub's rules for
// `::command::data`).
func EscapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// EscapeProperty escapes a property value (`title=...`): the data rules, plus ':' and ','.
func EscapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// Error writes one `::error` annotation with a title and a message.
func Error(w io.Writer, title, message string) {
	fmt.Fprintf(w, "::error title=%s::%s\n", EscapeProperty(title), EscapeData(message))
}

// Summary appends Markdown to the step summary file; nothing outside Actions or without the file.
func Summary(markdown string) error {
	path := os.Getenv("GITHUB_STEP_SUMMARY")
	if !On() || path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("GITHUB_STEP_SUMMARY %s: %w", path, err)
	}
	_, err = io.WriteString(f, markdown+"\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Annotate writes an `::error` for each spec that failed in run, titled with the spec and carrying
// the first line of its receipt.
func Annotate(w io.Writer, run *report.Run) {
	for _, s := range run.Specs {
		if s.Outcome() == report.Failed {
			Error(w, s.Name, report.ReceiptLine(s.Reason))
		}
	}
	for _, s := range run.Setups {
		Error(w, s.Node+" "+s.State+" in "+s.Suite, report.FirstLine(s.Reason))
	}
}

// LaneSummary is a lane's Markdown summary: the counts, then each failure with its receipt.
func LaneSummary(lane, target string, run *report.Run, problems []string) string {
	c := run.Count()
	var b strings.Builder
	fmt.Fprintf(&b, "### classproof lane %s (target %s)\n\n", lane, target)
	b.WriteString("| lane | ran | passed | failed | left out | skipped at run time |\n|---|---|---|---|---|---|\n")
	fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d |\n", lane, c.Ran, c.Passed, c.Failed, c.Filtered, c.Skipped)
	for _, s := range run.Specs {
		if s.Outcome() == report.Failed {
			fmt.Fprintf(&b, "\n**FAILED** %s\n\n```\n%s\n```\n", s.Name, strings.TrimSpace(s.Reason))
		}
	}
	for _, p := range problems {
		fmt.Fprintf(&b, "\n**FAILED LANE**: %s\n", p)
	}
	return b.String()
}
