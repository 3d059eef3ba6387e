package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/classproof/classproof/helpers/report/actions"
	"github.com/classproof/classproof/helpers/runner"
)

var runCommand = command{"run", "run the suites for this machine's lane against a target launcher",
	"classproof run --target ./classproof.yaml --repo .", "0 passed; 1 a spec failed, a process leaked (or the leak sweep could not finish) or the run was interrupted; 2 bad flags, an unusable manifest or launcher, or reports that could not be written", runCmd}

// runFlags is run's share of the run flags: all of them.
var runFlags = runner.Share{Takes: runner.AllRunFlags,
	Defaults: runner.RunFlags{Procs: 1, Timeout: 30 * time.Minute, Out: "out/run"},
	Out:      "folder for report.json, junit.xml and the pid ledger",
	Bounds:   "the whole run: the launcher's build, compiling the suites, the suites"}

func runCmd(ctx context.Context, args []string) int {
	start := time.Now()
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	f := runFlags.Defaults
	var inject string
	var dryRun bool
	own := runner.Table{
		{Name: "dry-run", On: &dryRun, Usage: "list what the lane would run, running nothing (any OS: a rehearsal of another OS's lane)"},
		{Name: "inject", Str: &inject, Usage: "Linux: make one class system call of every launcher process a silent success (sched_setscheduler, sched_setattr, ioprio_set or setpriority): does the lane catch it?"},
	}
	append(own, f.Table(runFlags)...).Define(fs)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	t, err := resolveTarget(f)
	if err != nil {
		return fail("run", err)
	}
	o := f.Options(t, f.Deadline(start))
	o.DryRun, o.Inject, o.Log = dryRun, inject, os.Stdout
	res, err := runner.Run(ctx, o)
	if res != nil {
		printRun(res, o.DryRun) // also a run whose ending failed (runner.EndError): what it saw
	}
	if err != nil {
		return fail("run", err)
	}
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
	if err := actions.Summary(actions.LaneSummary(res.Lane, res.Manifest.Name, res.Run, res.Problems, res.Containment, res.Sandbox.String())); err != nil {
		fmt.Fprintln(os.Stderr, "classproof:", err)
	}
}
