package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/classproof/classproof/fixtures/targets"
	"github.com/classproof/classproof/helpers/commands/actions"
	"github.com/classproof/classproof/helpers/commands/runner"
)

var runCommand = command{"run", "run the suites for this machine's lane against a target launcher",
	"classproof run --target ./classproof.yaml --repo .", "0 passed; 1 a spec failed, a process leaked or the run was interrupted; 2 bad flags or an unusable manifest or launcher", runCmd}

func runCmd(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var o runner.Options
	var ref, repo string
	var vars, suites multi
	fs.StringVar(&ref, "target", "", "target manifest (default: the embedded refmux.yaml)")
	fs.Var(&vars, "var", "NAME=VALUE: set a var the manifest declares (repeatable), e.g. variant=noclass")
	fs.StringVar(&o.Lane, "lane", "", "darwin, linux-idle or linux-ignore (default: this OS's lane for the target; another is refused)")
	fs.Var(&suites, "suite", "a suite to run, e.g. ./suites/cpuclass (repeatable; default: all)")
	fs.StringVar(&o.OutDir, "out", "out/run", "folder for report.json, junit.xml and the pid ledger")
	fs.IntVar(&o.Procs, "procs", 1, "Ginkgo parallel processes")
	fs.StringVar(&o.LabelFilter, "label-filter", "", "a further Ginkgo label filter, ANDed with the lane's")
	fs.StringVar(&o.Focus, "focus", "", "a Ginkgo focus regexp")
	fs.DurationVar(&o.Timeout, "timeout", 30*time.Minute, "the whole run: the launcher's build, compiling the suites, the suites")
	fs.StringVar(&repo, "repo", "", "the launcher's source tree, for the manifest's {repo} (default: the root of the git repository you are in, else this folder)")
	fs.BoolVar(&o.DryRun, "dry-run", false, "list what the lane would run, running nothing (any OS: a rehearsal of another OS's lane)")
	fs.StringVar(&o.Inject, "inject", "", "Linux: make one class system call of every launcher process a silent success (sched_setscheduler, sched_setattr, ioprio_set or setpriority): does the lane catch it?")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	o.Suites, o.Log = suites, os.Stdout
	var err error
	if repo, err = repoDir(repo); err == nil {
		o.Target, err = targets.Resolve(ref, o.Lane, vars, repo)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "classproof:", err)
		return exitUsage
	}
	res, err := runner.Run(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "classproof:", err)
		return exitUsage
	}
	printRun(res, o.DryRun)
	if !res.Passed() {
		return exitFailed
	}
	return exitPassed
}

// printRun prints what the run says (runner.Result.Text) and, in GitHub Actions, its annotations
// and step summary.
func printRun(res *runner.Result, dryRun bool) {
	fmt.Print(res.Text(dryRun))
	if res.Run == nil || dryRun || !actions.On() {
		return
	}
	workflow.Annotate(res.Run)
	for _, p := range res.Problems {
		workflow.Error("lane "+res.Lane, p)
	}
	if err := actions.Summary(actions.LaneSummary(res.Lane, res.Target.Name, res.Run, res.Problems, res.Containment, res.Sandbox.String())); err != nil {
		fmt.Fprintln(os.Stderr, "classproof:", err)
	}
}
