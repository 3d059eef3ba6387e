// Package actions puts results where GitHub Actions users look: an `::error` annotation per failed
// spec, and a Markdown summary appended to $GITHUB_STEP_SUMMARY. Outside Actions
// (GITHUB_ACTIONS is not "true") it writes nothing.
//
// CLI side: it must not import the Ginkgo DSL, Gomega, helpers/suite or fixtures/ (ci/layers.rules).
package actions

import (
	"crypto/rand"
	"encoding/hex"
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

// Guard keeps GitHub from acting on workflow commands in what the CLI prints: a launcher's output
// (receipts, build logs, the suites' stream) is untrusted, and a line of it such as
// `::stop-commands::X`, `::add-mask::classproof` or `::warning::` would otherwise silence the
// kit's annotations, hide words or raise its own. In Actions it writes `::stop-commands::TOKEN`
// at once, with a random TOKEN no launcher sees; the runner then takes no line as a command
// until `::TOKEN::`. The kit's own annotations resume, write and stop again with a new token.
// Outside Actions it writes nothing but the annotations' absence.
type Guard struct {
	w     io.Writer
	token string
}

// Stop starts guarding w (see Guard); Resume must be called before the process exits, or the
// rest of the step's log stays unprocessed.
func Stop(w io.Writer) *Guard {
	g := &Guard{w: w}
	if On() {
		g.stop()
	}
	return g
}

func (g *Guard) stop() {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on Linux or macOS
	}
	g.token = "classproof-" + hex.EncodeToString(b)
	fmt.Fprintf(g.w, "::stop-commands::%s\n", g.token)
}

// Resume lets the runner take commands again.
func (g *Guard) Resume() {
	if g.token != "" {
		fmt.Fprintf(g.w, "::%s::\n", g.token)
		g.token = ""
	}
}

// Error writes one of the kit's own `::error` annotations, between a resume and a new stop.
func (g *Guard) Error(title, message string) {
	if !On() {
		return
	}
	guarded := g.token != ""
	g.Resume()
	Error(g.w, title, message)
	if guarded {
		g.stop()
	}
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
func (g *Guard) Annotate(run *report.Run) {
	for _, s := range run.Specs {
		if s.Outcome() == report.Failed {
			g.Error(s.Name, report.ReceiptLine(s.Reason))
		}
	}
	for _, s := range run.Setups {
		g.Error(s.Node+" "+s.State+" in "+s.Suite, report.FirstLine(s.Reason))
	}
}

// LaneSummary is a lane's Markdown summary: the counts, then each failure with its receipt.
func LaneSummary(lane, target string, run *report.Run, problems []string, containment, sandbox string) string {
	c := run.Count()
	var b strings.Builder
	fmt.Fprintf(&b, "### classproof lane %s (target %s)\n\n", lane, target)
	b.WriteString("| lane | ran | passed | failed | left out | skipped at run time |\n|---|---|---|---|---|---|\n")
	fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d |\n", lane, c.Ran, c.Passed, c.Failed, c.Filtered, c.Skipped)
	if containment != "" {
		fmt.Fprintf(&b, "\nContainment: %s\n", report.Code(containment))
	}
	if sandbox != "" {
		fmt.Fprintf(&b, "\nSandbox: %s\n", report.Code(sandbox))
	}
	for _, s := range run.Specs {
		if s.Outcome() == report.Failed {
			fmt.Fprintf(&b, "\n**FAILED** %s\n\n%s", s.Name, report.Fence(strings.TrimSpace(s.Reason)))
		}
	}
	for _, p := range problems {
		fmt.Fprintf(&b, "\n**FAILED LANE**: %s\n", report.Code(p))
	}
	return b.String()
}

// Acted is what GitHub's runner would act on in a step's log, as the kit's tests model it: leading
// whitespace is trimmed, a line starting with "::" is a command, and after
// ::stop-commands::TOKEN none is until ::TOKEN::. Stopping and resuming are not listed.
func Acted(log string) []string {
	var acted []string
	stopped := ""
	for _, line := range strings.Split(log, "\n") {
		line = strings.TrimLeft(line, " \t")
		if !strings.HasPrefix(line, "::") {
			continue
		}
		if stopped != "" {
			if line == "::"+stopped+"::" {
				stopped = ""
			}
			continue
		}
		cmd, rest, _ := strings.Cut(line[2:], "::")
		if cmd == "stop-commands" {
			stopped = rest
			continue
		}
		acted = append(acted, cmd+"::"+rest)
	}
	return acted
}
