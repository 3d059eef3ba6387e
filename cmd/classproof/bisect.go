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
	"github.com/classproof/classproof/helpers/commands/bisect"
	"github.com/classproof/classproof/helpers/report/actions"
)

var bisectCommand = command{"bisect", "find the first commit whose lane fails the specs a bad commit fails (by their own assertion), each step built in a worktree of its own",
	"classproof bisect --good v1.2.0 --bad main --target ./classproof.yaml",
	"0 found; 1 not found (the range never turned at one commit, or it was interrupted); 2 bad flags or refs, or a range that does not bracket a failure (named)", bisectCmd}

func bisectCmd(ctx context.Context, args []string) int {
	start := time.Now()
	fs := flag.NewFlagSet("bisect", flag.ContinueOnError)
	f := bisect.DefaultFlags()
	f.Define(fs)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	o, err := bisectOptions(f, start)
	if err != nil {
		return fail("bisect", err)
	}
	o.Progress = os.Stderr // a line per step: a search takes minutes
	b, err := bisect.Search(ctx, o)
	if err != nil {
		return fail("bisect", err) // exitFor: 1 interrupted, 2 refused or could not be made
	}
	md := bisect.Markdown(b)
	fmt.Print(md)
	fmt.Printf("\nreceipts: %s, %s\n", filepath.Join(f.Out, "bisect.md"), filepath.Join(f.Out, "bisect.json"))
	if actions.On() {
		if err := actions.Summary(md); err != nil {
			fmt.Fprintln(os.Stderr, "classproof bisect:", err)
		}
	}
	if !b.Found {
		return exitFailed
	}
	return exitPassed
}

// bisectOptions is the search the flags ask for, in the repository {repo} is by default
// (repoFor).
func bisectOptions(f bisect.Flags, start time.Time) (bisect.Options, error) {
	target, err := f.Target()
	if err != nil {
		return bisect.Options{}, err
	}
	if f.Repo, err = repoFor(f.Repo, target, os.Stderr); err != nil {
		return bisect.Options{}, err
	}
	kit, err := binaries.KitDir()
	if err != nil {
		return bisect.Options{}, err
	}
	return f.Options(targets.Catalog(), kit, start)
}
