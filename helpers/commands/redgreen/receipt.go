package redgreen

import (
	"cmp"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"text/template"
	"time"

	"github.com/classproof/classproof/helpers/base/files"
	"github.com/classproof/classproof/helpers/base/git"
	"github.com/classproof/classproof/helpers/report"
)

// writeReceipts writes receipt.md (for a pull request) and receipt.json (for machines).
func writeReceipts(p *Proof) error {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	if err := files.WriteFile(filepath.Join(p.Options.Out, "receipt.json"), b, 0o644); err != nil {
		return err
	}
	return files.WriteFile(filepath.Join(p.Options.Out, "receipt.md"), []byte(Markdown(p)), 0o644)
}

// Markdown renders the receipt the way our users write them: red at SHA with each failing spec
// and its oracle line, green at SHA with "N of N passed", then Observed / Not run.
func Markdown(p *Proof) string {
	var b strings.Builder
	if err := receiptTemplate.Execute(&b, newReceiptView(p)); err != nil {
		return "receipt: " + err.Error()
	}
	return b.String()
}

// receiptTemplate is the receipt's shape, modelled on the seeds' red/green notes.
var receiptTemplate = template.Must(template.New("receipt").Parse(`# classproof red/green: {{.Title}}

{{.Source}}
Platform: {{.Platform}}
Selection: {{.Selection}}.
Reproduce: {{.Reproduce}}
{{range .Notes}}Note: {{.}}.
{{end}}
## Tests (red, then green)

{{.RedBlock}}{{.GreenBlock}}{{if .Rows}}
| spec | red | green |
|---|---|---|
{{range .Rows}}| {{.Name}} | {{.Red}} | {{.Green}} |
{{end}}{{end}}
## Verdict

**{{.Title}}**

{{.Reason}}{{if .FailToPass}}
Fail to pass ({{len .FailToPass}}: failed on red by their own assertion, pass on green):
{{range .FailToPass}}- {{.}}
{{end}}{{end}}{{if .PassedBoth}}
Passed on both: {{len .PassedBoth}} specs.
{{end}}{{if .Broken}}
Neither fail-to-pass nor passed on both (failed on both sides, or on one side only):
{{range .Broken}}- {{.}}
{{end}}{{end}}{{if .AlsoFixed}}
Also fixed (outside the selection: failed on red, pass on green):
{{range .AlsoFixed}}- {{.}}
{{end}}{{end}}{{if .Regressions}}
Regressions outside the selection:
{{range .Regressions}}- {{.}}
{{end}}{{end}}
## Observed / Not run

{{range .Observed}}- {{.}}
{{end}}
## Durations

{{range .Durations}}- {{.}}
{{end}}`))

type receiptRow struct{ Name, Red, Green string }

type receiptView struct {
	Title, Source, Platform, Selection, Reproduce, RedBlock, GreenBlock, Reason string
	Notes, AlsoFixed, Regressions, Observed, Durations                          []string
	FailToPass, PassedBoth, Broken                                              []string
	Rows                                                                        []receiptRow
}

func newReceiptView(p *Proof) receiptView {
	v := receiptView{Title: "proven", Platform: fmt.Sprintf("%s/%s %s, lane %s, target `%s`.", p.Machine.OS, p.Machine.Arch, p.Machine.Version, p.Lane, p.Green.Target),
		Selection: selection(p.Options.Selection), Reproduce: report.Code(p.Reproduce()), Notes: p.Notes,
		RedBlock: redBlock(p), GreenBlock: greenBlock(p), Reason: report.Fence(p.Verdict.Reason),
		AlsoFixed: codes(p.Verdict.AlsoFixed), Regressions: codes(p.Verdict.Regressions), Observed: observed(p),
		FailToPass: p.Verdict.FailToPass, PassedBoth: p.Verdict.PassedBoth, Broken: codes(p.Verdict.Broken)}
	if !p.Verdict.Proven {
		v.Title = "NOT PROVEN"
	}
	v.Source = fmt.Sprintf("Prebuilt launchers: red %s, green %s.", report.Code(p.Red.Target), report.Code(p.Green.Target))
	if p.Options.Repo != "" {
		v.Source = fmt.Sprintf("Repository: %s, red %s at %s, green %s at %s.", report.Code(p.Options.Repo), report.Code(p.Red.Ref), report.Code(p.Red.SHA),
			report.Code(p.Green.Ref), report.Code(p.Green.SHA))
	}
	for _, x := range p.Verdict.Outcomes {
		green := x.Green
		if len(x.GreenRepeat) > 0 {
			green += " (repeats: " + strings.Join(x.GreenRepeat, ", ") + ")"
		}
		v.Rows = append(v.Rows, receiptRow{x.Name, x.Red, green})
	}
	for _, s := range append([]*Side{p.Red, p.Green}, p.Repeats...) {
		v.Durations = append(v.Durations, fmt.Sprintf("%s: build %s, run %s", s.Name, secs(s.BuildTime), secs(s.RunTime)))
	}
	v.Durations = append(v.Durations, "total: "+secs(p.Duration))
	return v
}

// buildFailure is a side whose build failed: the step that failed and its last lines.
func buildFailure(s *Side) string {
	return fmt.Sprintf("- %s at %s: %s:\n\n%s", s.Name, git.Short(s.SHA), failedStep(s), report.Fence(report.LastLines(s.BuildError, 12)))
}

// redBlock is the red side: its build failure, or each selected spec with the oracle's line.
func redBlock(p *Proof) string {
	if p.Red.BuildError != "" {
		return buildFailure(p.Red)
	}
	o, proved := p.Verdict.Outcomes, 0
	var items []string
	for _, x := range o {
		if x.RedProof {
			proved++
			items = append(items, fmt.Sprintf("  - %s: %s\n", x.Name, oracleLine(x.RedMessage)))
		} else {
			items = append(items, fmt.Sprintf("  - %s: **does not prove**: %s\n", x.Name, report.Code(x.RedWhy)))
		}
	}
	what := "selected specs"
	if p.Options.Selection.Empty() {
		what = "specs of the fail-to-pass set"
	}
	return fmt.Sprintf("- red at %s: %d of %d %s failed by their own assertion.\n", cmp.Or(git.Short(p.Red.SHA), p.Red.Target), proved, len(o), what) + strings.Join(items, "")
}

// greenBlock is the green side: its build failure, or how many selected specs passed.
func greenBlock(p *Proof) string {
	if p.Green.BuildError != "" {
		return buildFailure(p.Green)
	}
	o, passed := p.Verdict.Outcomes, 0
	var items []string
	for _, x := range o {
		if x.GreenOK {
			passed++
		} else {
			items = append(items, fmt.Sprintf("  - %s: %s\n", x.Name, report.Code(x.GreenWhy)))
		}
	}
	line := fmt.Sprintf("- green at %s: %d of %d passed", cmp.Or(git.Short(p.Green.SHA), p.Green.Target), passed, len(o))
	if p.Green.Result != nil && p.Green.Result.Run != nil {
		c := p.Green.Result.Run.Count()
		line += fmt.Sprintf(" (whole lane: %d of %d passed)", c.Passed, c.Ran)
	}
	if len(p.Repeats) > 0 {
		line += fmt.Sprintf("; green ran %d more times", len(p.Repeats))
	}
	return line + ".\n" + strings.Join(items, "")
}

// observed lists what ran and what did not, each not-run group with its reason.
func observed(p *Proof) []string {
	var out []string
	for _, s := range append([]*Side{p.Red, p.Green}, p.Repeats...) {
		if s.Result != nil && s.Result.Run != nil {
			c := s.Result.Run.Count()
			out = append(out, fmt.Sprintf("Observed: %s run, %d specs ran (%d passed, %d failed), report `%s`.", s.Name, c.Ran, c.Passed, c.Failed, s.ReportPath))
		} else {
			why := "no run"
			if s.BuildError != "" {
				why = report.Code(report.FirstLine(s.BuildError))
			}
			out = append(out, fmt.Sprintf("Not run: the %s suites (%s).", s.Name, why))
		}
	}
	reasons := map[string][]string{}
	for _, s := range p.Verdict.NotRun {
		why := "skipped at run time: " + report.Code(report.FirstLine(s.Reason))
		if s.Filtered {
			var run report.Run
			if p.Red.Result != nil && p.Red.Result.Run != nil {
				run = *p.Red.Result.Run
			}
			l, r := run.LeftOutReason(s)
			why = "left out by the label filter (" + l + ": " + r + ")"
		}
		reasons[why] = append(reasons[why], s.Name)
	}
	keys := make([]string, 0, len(reasons))
	for k := range reasons {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, fmt.Sprintf("Not run, %d specs, %s.", len(reasons[k]), k))
	}
	if p.Machine.OS != "darwin" {
		out = append(out, fmt.Sprintf("Not run: macOS (this proof ran on %s).", p.Machine.OS))
	}
	return out
}

func selection(s Selection) string {
	if s.Empty() {
		return "none: the whole lane, and the proof is its fail-to-pass set"
	}
	var parts []string
	if s.Focus != "" {
		parts = append(parts, "focus "+report.Code(s.Focus))
	}
	if s.LabelFilter != "" {
		parts = append(parts, "labels "+report.Code(s.LabelFilter))
	}
	return strings.Join(parts, " and ")
}

// oracleLine picks the first receipt line the oracle wrote ("FAIL ... pid ...") from a failure.
func oracleLine(msg string) string { return report.Code(report.ReceiptLine(msg)) }

// codes is each line as a code span: spec names with the launcher's words after them.
func codes(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = report.Code(l)
	}
	return out
}

func secs(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

// Reproduce is the command that runs the same proof again, as printed, from any folder: it goes to
// the kit's folder (go run needs its module), names every path absolutely and each side by the
// commit it proved (a ref such as HEAD~1 moves on). Run from a release archive, it is the
// archive's own CLI, which needs no Go.
func (p *Proof) Reproduce() string {
	o := p.Options
	if p.Red != nil && p.Red.SHA != "" {
		o.Red = p.Red.SHA
	}
	if p.Green != nil && p.Green.SHA != "" {
		o.Green = p.Green.SHA
	}
	return reproduce(o)
}
