package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/classproof/classproof/fixtures/targets"
	"github.com/classproof/classproof/helpers/actions"
	"github.com/classproof/classproof/helpers/build"
	"github.com/classproof/classproof/helpers/redgreen"
	"github.com/classproof/classproof/helpers/runner"
)

var redgreenCommand = command{"redgreen", "prove a fix: specs fail on a red commit by their own assertion and pass on a green one",
	"classproof redgreen --red HEAD~1 --green HEAD --target ./classproof.yaml   (no selection: the proof is the fail-to-pass set; --focus/--label-filter narrow it)", "0 proven; 1 not proven; 2 bad refs, manifest or flags", redgreenCmd}

func redgreenCmd(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("redgreen", flag.ContinueOnError)
	o := redgreen.Options{Catalog: targets.Catalog()}
	var vars, suites multi
	fs.StringVar(&o.Repo, "repo", "", "the launcher's git repository (default, without --red-target/--green-target: the one you are in)")
	fs.StringVar(&o.Red, "red", "", "the ref that must fail (the commit before the fix)")
	fs.StringVar(&o.Green, "green", "", "the ref that must pass (the fix)")
	fs.StringVar(&o.Target, "target", "", "manifest whose build step builds {repo}")
	fs.StringVar(&o.RedTarget, "red-target", "", "instead of --repo: manifest of a prebuilt red launcher")
	fs.StringVar(&o.GreenTarget, "green-target", "", "instead of --repo: manifest of a prebuilt green launcher")
	fs.StringVar(&o.Selection.Focus, "focus", "", "regexp on the full spec text: the specs the proof is about")
	fs.StringVar(&o.Selection.LabelFilter, "label-filter", "", "Ginkgo label query: the specs the proof is about")
	fs.Var(&suites, "suite", "a suite to run, e.g. ./suites/cpuclass (repeatable; default: all)")
	fs.Var(&vars, "var", "NAME=VALUE for the manifest (repeatable)")
	fs.StringVar(&o.Lane, "lane", "", "the lane (default: this OS's lane for the target)")
	fs.StringVar(&o.OutDir, "out", "out/redgreen", "folder for the receipts and each side's reports")
	fs.IntVar(&o.Repeat, "repeat", 0, "run green this many more times, to show it is stable")
	fs.BoolVar(&o.AllowDirty, "allow-dirty", false, "prove refs at HEAD although tracked files have uncommitted changes (the receipt says so)")
	fs.IntVar(&o.Procs, "procs", 1, "Ginkgo parallel processes")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	o.Vars, o.Suites = vars, suites
	if runner.IsTerminal(os.Stderr) && os.Getenv("CI") == "" {
		o.Progress = os.Stderr
	}
	var err error
	if o.RedTarget == "" && o.GreenTarget == "" {
		if o.Repo, err = repoDir(o.Repo); err != nil {
			fmt.Fprintln(os.Stderr, "classproof redgreen:", err)
			return exitUsage
		}
	}
	if o.KitDir, err = build.KitDir(); err != nil {
		fmt.Fprintln(os.Stderr, "classproof:", err)
		return exitUsage
	}
	p, err := redgreen.Prove(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "classproof redgreen:", err)
		return exitUsage
	}
	fmt.Print(redgreen.Markdown(p))
	fmt.Printf("\nreceipts: %s, %s\n", filepath.Join(p.Options.OutDir, "receipt.md"), filepath.Join(p.Options.OutDir, "receipt.json"))
	if actions.On() {
		if !p.Verdict.Proven {
			workflow.Error("classproof redgreen", p.Verdict.Reason)
		}
		if err := actions.Summary(redgreen.Markdown(p)); err != nil {
			fmt.Fprintln(os.Stderr, "classproof redgreen:", err)
		}
	}
	if !p.Verdict.Proven {
		return exitFailed
	}
	return exitPassed
}
