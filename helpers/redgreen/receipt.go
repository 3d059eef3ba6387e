package redgreen

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/classproof/classproof/helpers/proc"
	"github.com/classproof/classproof/helpers/report"
)

// writeReceipts writes receipt.md (for a pull request) and receipt.json (for machines).
func writeReceipts(p *Proof) error {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	if err := proc.WriteFile(filepath.Join(p.Options.OutDir, "receipt.json"), b, 0o644); err != nil {
		return err
	}
	return proc.WriteFile(filepath.Join(p.Options.OutDir, "receipt.md"), []byte(Markdown(p)), 0o644)
}

// Markdown renders the receipt the way our users write them: red at SHA with each failing spec
// and its oracle line, green at SHA with "N of N passed", then Observed / Not run.
func Markdown(p *Proof) string {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	verdict := "proven"
	if !p.Verdict.Proven {
		verdict = "NOT PROVEN"
	}
	w("# classproof red/green: %s\n\n", verdict)
	if p.Options.Repo != "" {
		w("Repository: `%s`, red `%s` at %s, green `%s` at %s.\n", p.Options.Repo, p.Red.Ref, p.Red.SHA, p.Green.Ref, p.Green.SHA)
	} else {
		w("Prebuilt launchers: red `%s`, green `%s`.\n", p.Red.Target, p.Green.Target)
	}
	w("Platform: %s/%s %s, lane %s, target `%s`.\n", p.Machine.OS, p.Machine.Arch, p.Machine.Version, p.Lane, p.Green.Target)
	w("Selection: %s.\n", selection(p.Options.Selection))
	w("Reproduce (in the classproof module): `%s`\n", Reproduce(p.Options))
	for _, n := range p.Notes {
		w("Note: %s.\n", n)
	}
	w("\n## Tests (red, then green)\n\n")
	o := p.Verdict.Outcomes
	redProved := 0
	greenPassed := 0
	for _, x := range o {
		if x.RedProof {
			redProved++
		}
		if x.GreenOK {
			greenPassed++
		}
	}
	switch {
	case p.Red.BuildError != "":
		w("- red at %s: %s:\n\n```\n%s\n```\n", short(p.Red.SHA), failedStep(p.Red.BuildError), lastLines(p.Red.BuildError, 12))
	default:
		w("- red at %s: %d of %d selected specs failed by their own assertion.\n", nonempty(short(p.Red.SHA), p.Red.Target), redProved, len(o))
		for _, x := range o {
			if x.RedProof {
				w("  - %s: %s\n", x.Name, oracleLine(x.RedMessage))
			} else {
				w("  - %s: **does not prove**: %s\n", x.Name, x.RedWhy)
			}
		}
	}
	switch {
	case p.Green.BuildError != "":
		w("- green at %s: %s:\n\n```\n%s\n```\n", short(p.Green.SHA), failedStep(p.Green.BuildError), lastLines(p.Green.BuildError, 12))
	default:
		w("- green at %s: %d of %d passed", nonempty(short(p.Green.SHA), p.Green.Target), greenPassed, len(o))
		if p.Green.Result != nil && p.Green.Result.Run != nil {
			c := p.Green.Result.Run.Count()
			w(" (whole lane: %d of %d passed)", c.Passed, c.Ran)
		}
		if len(p.Repeats) > 0 {
			w("; green ran %d more times", len(p.Repeats))
		}
		w(".\n")
		for _, x := range o {
			if !x.GreenOK {
				w("  - %s: **%s**\n", x.Name, x.GreenWhy)
			}
		}
	}
	if len(o) > 0 {
		w("\n| spec | red | green |\n|---|---|---|\n")
		for _, x := range o {
			green := x.Green
			if len(x.GreenRepeat) > 0 {
				green += " (repeats: " + strings.Join(x.GreenRepeat, ", ") + ")"
			}
			w("| %s | %s | %s |\n", x.Name, x.Red, green)
		}
	}
	w("\n## Verdict\n\n%s\n", p.Verdict.Reason)
	if len(p.Verdict.AlsoFixed) > 0 {
		w("\nAlso fixed (outside the selection: failed on red, pass on green):\n")
		for _, r := range p.Verdict.AlsoFixed {
			w("- %s\n", r)
		}
	}
	if len(p.Verdict.Regressions) > 0 {
		w("\nRegressions outside the selection:\n")
		for _, r := range p.Verdict.Regressions {
			w("- %s\n", r)
		}
	}
	w("\n## Observed / Not run\n\n")
	for _, s := range append([]*Side{p.Red, p.Green}, p.Repeats...) {
		if s.Result != nil && s.Result.Run != nil {
			c := s.Result.Run.Count()
			w("- Observed: %s run, %d specs ran (%d passed, %d failed), report `%s`.\n", s.Name, c.Ran, c.Passed, c.Failed, s.ReportPath)
		} else {
			w("- Not run: the %s suites (%s).\n", s.Name, nonempty(report.FirstLine(s.BuildError), "no run"))
		}
	}
	reasons := map[string][]string{}
	for _, s := range p.Verdict.NotRun {
		why := "skipped at run time: " + report.FirstLine(s.Reason)
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
		w("- Not run, %d specs, %s.\n", len(reasons[k]), k)
	}
	if p.Machine.OS != "darwin" {
		w("- Not run: macOS (this proof ran on %s).\n", p.Machine.OS)
	}
	w("\n## Durations\n\n")
	for _, s := range append([]*Side{p.Red, p.Green}, p.Repeats...) {
		w("- %s: build %s, run %s\n", s.Name, secs(s.BuildTime), secs(s.RunTime))
	}
	w("- total: %s\n", secs(p.Duration))
	return b.String()
}

func selection(s Selection) string {
	var parts []string
	if s.Focus != "" {
		parts = append(parts, fmt.Sprintf("focus `%s`", s.Focus))
	}
	if s.LabelFilter != "" {
		parts = append(parts, fmt.Sprintf("labels `%s`", s.LabelFilter))
	}
	return strings.Join(parts, " and ")
}

// oracleLine picks the first receipt line the oracle wrote ("FAIL ... pid ...") from a failure.
func oracleLine(msg string) string {
	for _, l := range strings.Split(msg, "\n") {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "FAIL ") {
			return "`" + strings.TrimPrefix(t, "FAIL ") + "`"
		}
	}
	return "`" + report.FirstLine(msg) + "`"
}

func nonempty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func secs(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

// Reproduce is the command that runs the same proof again.
func Reproduce(o Options) string {
	args := []string{"go", "run", "./cmd/classproof", "redgreen"}
	add := func(flag, v string) {
		if v != "" {
			args = append(args, flag, shellQuote(v))
		}
	}
	add("--repo", o.Repo)
	add("--red", o.Red)
	add("--green", o.Green)
	add("--target", o.Target)
	add("--red-target", o.RedTarget)
	add("--green-target", o.GreenTarget)
	add("--focus", o.Selection.Focus)
	add("--label-filter", o.Selection.LabelFilter)
	add("--lane", o.Lane)
	for _, s := range o.Suites {
		add("--suite", s)
	}
	for _, v := range o.Vars {
		add("--var", v)
	}
	if o.Repeat > 0 {
		add("--repeat", fmt.Sprint(o.Repeat))
	}
	return strings.Join(args, " ")
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@,+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}
