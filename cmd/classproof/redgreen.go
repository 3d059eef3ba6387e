package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/classproof/classproof/fixtures/targets"
	"github.com/classproof/classproof/helpers/binaries"
	"github.com/classproof/classproof/helpers/commands/redgreen"
	"github.com/classproof/classproof/helpers/report/actions"
	"github.com/classproof/classproof/helpers/runner"
)

var redgreenCommand = command{"redgreen", "prove a fix: specs fail on a red commit by their own assertion and pass on a green one",
	"classproof redgreen --red HEAD~1 --green HEAD --target ./classproof.yaml   (no selection: the proof is the fail-to-pass set; --focus/--label-filter narrow it)", "0 proven; 1 not proven; 2 bad refs, manifest or flags", redgreenCmd}

func redgreenCmd(ctx context.Context, args []string) int {
	start := time.Now() // --timeout bounds the whole command, as for run and bisect
	fs := flag.NewFlagSet("redgreen", flag.ContinueOnError)
	f := redgreen.DefaultFlags()
	f.Define(fs)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if f.RedTarget == "" && f.GreenTarget == "" {
		target, err := f.Target()
		if err == nil {
			f.Repo, err = repoFor(f.Repo, target, os.Stderr)
		}
		if err != nil {
			return fail("redgreen", err)
		}
	}
	kit, err := binaries.KitDir()
	if err != nil {
		return fail("redgreen", err)
	}
	o, err := f.Options(targets.Catalog(), kit, start)
	if err != nil {
		return fail("redgreen", err)
	}
	if runner.IsTerminal(os.Stderr) && os.Getenv("CI") == "" {
		o.Progress = os.Stderr
	}
	p, err := redgreen.Prove(ctx, o)
	if err != nil {
		return fail("redgreen", err)
	}
	fmt.Print(redgreen.Markdown(p))
	fmt.Printf("\nreceipts: %s, %s\n", filepath.Join(p.Options.Out, "receipt.md"), filepath.Join(p.Options.Out, "receipt.json"))
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
