package bisect

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/classproof/classproof/helpers/base/files"
	"github.com/classproof/classproof/helpers/base/git"
	"github.com/classproof/classproof/helpers/report"
	"github.com/classproof/classproof/helpers/runner"
)

// write writes bisect.md and bisect.json in --out.
func write(b *Bisection) error {
	j, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return err
	}
	out := b.Options.Flags.Out
	if err := files.WriteFile(filepath.Join(out, "bisect.json"), j, 0o644); err != nil {
		return err
	}
	return files.WriteFile(filepath.Join(out, "bisect.md"), []byte(Markdown(b)), 0o644)
}

// Markdown is the search's receipt, in the form redgreen's takes: what was found, the
// specs that broke there, what was skipped and why, every lane run, and how to run it again.
func Markdown(b *Bisection) string {
	var w strings.Builder
	f := b.Options.Flags
	if b.Found {
		fmt.Fprintf(&w, "# classproof bisect: first bad commit %s %s\n\n", git.Short(b.FirstBad.SHA), b.FirstBad.Subject)
	} else {
		fmt.Fprintf(&w, "# classproof bisect: no first bad commit found\n\n%s\n\n", b.Why)
	}
	fmt.Fprintf(&w, "- Repository: `%s`, %d commits after --good %s (%s) up to --bad %s (%s)\n", b.Repo, b.Range, git.Short(b.Good.SHA), b.Good.Subject, git.Short(b.Bad.SHA), b.Bad.Subject)
	fmt.Fprintf(&w, "- Target: `%s`\n", strings.Join(f.Targets, ", "))
	fmt.Fprintf(&w, "- Specs that fail on --bad by their own assertion (the search's focus): %d\n", len(b.Specs))
	if b.Found {
		fmt.Fprintf(&w, "- First bad commit: `%s` %s\n- Its parent: `%s` %s\n\nPassed on its parent and fail on it by their own assertion:\n\n", b.FirstBad.SHA, b.FirstBad.Subject, b.Parent.SHA, b.Parent.Subject)
		for _, s := range b.Broke {
			fmt.Fprintf(&w, "- %s\n", s)
		}
	}
	if len(b.Skipped) > 0 {
		w.WriteString("\nSkipped (git bisect's 125):\n\n")
		for _, s := range b.Skipped {
			fmt.Fprintf(&w, "- `%s` %s: %s\n", git.Short(s.SHA), s.Subject, report.FirstLine(s.Why))
		}
	}
	fmt.Fprintf(&w, "\nLane runs: %d (%d of the focused specs, %d of the lane's selection whole):\n\n| # | commit | run | verdict | seconds | report |\n|---|---|---|---|---|---|\n",
		len(b.Steps), b.FocusedRuns(), len(b.Steps)-b.FocusedRuns())
	for i, s := range b.Steps {
		where := "none: skipped before its run"
		if s.Report != "" {
			where = report.Code(s.Report)
		}
		fmt.Fprintf(&w, "| %d | `%s` %s | %s | %s | %.1f | %s |\n", i+1, git.Short(s.SHA), s.Subject, s.What, s.Verdict, s.Seconds, where)
	}
	fmt.Fprintf(&w, "\nReproduce: %s\n", report.Code(reproduce(b)))
	return w.String()
}

// reproduce is the command line that runs the same search again, from any folder.
func reproduce(b *Bisection) string {
	kit := "."
	if b.Options.Launcher != nil {
		kit = b.Options.Launcher.Kit
	}
	f := b.Options.Flags
	f.Good, f.Bad = b.Good.SHA, b.Bad.SHA // the commits, not refs that may move
	return runner.Reproduce(kit, "bisect", f.Args())
}
