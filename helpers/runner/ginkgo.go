package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/classproof/classproof/helpers/base/cgroup"
	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/interrupt"
	"github.com/classproof/classproof/helpers/base/proc"
	"github.com/classproof/classproof/helpers/base/proctable"
)

// ginkgoCommand is the ginkgo CLI at the version go.mod pins, over the binaries.Compiled suites, with the
// run's environment for the suites.
func ginkgoCommand(o Options, pl plan, pr prepared, ledger, token string, runCg *cgroup.Cgroup, outDir string, suites []string) *exec.Cmd {
	c := pr.compiled
	args := []string{
		"--label-filter", pl.filter,
		// Not --fail-on-empty: a suite may rightly select nothing for a target that lacks what it
		// needs (compat without a spawn-spec interface); an empty run as a whole fails instead.
		"--fail-on-pending", "--randomize-all",
		"--poll-progress-after", "60s", "--poll-progress-interval", "30s",
		"--json-report", "report.json", "--junit-report", "junit.xml", "--output-dir", outDir,
	}
	if o.FailFast {
		args = append(args, "--fail-fast")
	} else {
		args = append(args, "--keep-going")
	}
	if !pr.deadline.IsZero() {
		// Ginkgo takes what is left of the run's deadline as a duration: made here, at the exec.
		args = append(args, "--timeout", max(time.Until(pr.deadline), time.Second).Round(time.Second).String())
	}
	// Ginkgo dry-runs only in series (it refuses --procs with --dry-run), so a lane's own command
	// line, --procs and all, still rehearses.
	if o.Procs > 1 && !o.DryRun {
		args = append(args, "--procs", fmt.Sprint(o.Procs))
	}
	if o.Focus != "" {
		args = append(args, "--focus", o.Focus)
	}
	if !IsTerminal(o.Log) {
		args = append(args, "--no-color")
	}
	if o.DryRun {
		args = append(args, "--dry-run")
	}
	cmd := exec.Command(c.Ginkgo, append(args, suites...)...)
	cmd.Dir = o.Target.Kit
	cmd.Stdout, cmd.Stderr = o.Log, o.Log
	t := o.Target
	run := contract.Run{Target: t.Ref, Vars: t.Vars, Bin: pr.bin, Repo: t.Repo, Kit: t.Kit, Harness: c.Harness,
		Ledger: ledger, LedgerCopy: channelCopyOf(pl), Supervisor: proctable.Supervisor(), Token: token, Scale: contract.Current().Scale,
		Sandbox: contract.Current().Sandbox, LauncherUID: contract.Current().LauncherUID, RunUID: pl.id.RunUID(), LauncherLimits: pl.limits.String(), Sites: o.Sites}
	if o.Inject != "" {
		run.Inject, run.InjectLog = o.Inject, injectLog(pl.out)
	}
	if runCg != nil {
		run.Cgroup = runCg.Path
	} else if contract.Current().Cgroup == cgroup.Off {
		run.Cgroup = cgroup.Off // the suites' processes too
	}
	cmd.Env = append(run.Over(os.Environ()), "GOWORK=off")
	// Its own session, and so its own process group, so that an interrupt reaches the test
	// processes too: the ginkgo CLI does not forward signals to them, and their DeferCleanups are
	// what kill the launchers. A session of its own is also an autogroup of its own on Linux
	// (sched(7), "The autogroup feature"): a launcher that writes the autogroup it inherits then
	// changes this lane's, where the kit sees it and fails the run (helpers/suite own.go), and never
	// the caller's shell, where it would outlive the run and fail every later one.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return cmd
}

// runCgroup makes the run's own cgroup below this process's (cgroup.Contained), which the suites'
// specs make theirs in; nil where there is none, and res says which containment the run has.
func runCgroup(res *Result, token string) *cgroup.Cgroup {
	c := cgroup.Contained()
	if c.Cgroup != nil {
		cg, err := c.Cgroup.Child("run-" + strings.TrimPrefix(token, "cp-")[:12])
		if err == nil {
			res.Containment = cgroup.Containment{Cgroup: cg}.String()
			return cg
		}
		c = cgroup.Containment{Why: err.Error()}
	}
	res.Containment = c.String()
	return nil
}

// sweep kills what the ledger names of this run and then what is left in its cgroup: exact where
// the ledger is a claim, so whatever is still there leaked. With no cgroup, what still carries
// the run's token leaked. Last, a uid of the run's own is let go of: a process that still has it
// escaped all of that, and is a leak too.
func sweep(res *Result, pl *plan, token string, runCg *cgroup.Cgroup) error {
	var err error
	res.Leaks, res.Refused, err = proc.Sweep(pl.ledger, token, runCg, pl.id.Uid)
	if err != nil {
		// The ledger is the launcher's to append to: one the sweep will not take (past its size,
		// swapped for another file) is the launcher's doing, and fails the run; the cgroup, the
		// token and the run's own uid still end what it named.
		res.Problems = append(res.Problems, fmt.Sprintf("the pid ledger %s was not swept: %v", pl.ledger, err))
	}
	defer func() {
		// The ledger the harness appended to is the kit's again before the uid's sweep, which
		// would otherwise find it, the uid's, where the uid cannot remove it.
		// Unsealed first: the kernel refuses chown of an append-only file.
		if err := errors.Join(proc.UnsealLedger(pl.ledger), pl.id.Reclaim(pl.ledger)); err != nil {
			res.Problems = append(res.Problems, err.Error())
		}
		leaks, left, failed := pl.release()
		pl.release = nil
		res.Leaks, res.Left = append(res.Leaks, leaks...), left
		// A setuid or setgid file of the uid (a door into it for whoever runs it), or what the
		// sweep could not remove (the uid is then kept from later runs): the run fails on each.
		res.Problems = append(res.Problems, failed...)
	}()
	if runCg == nil {
		left, err := proc.SweepToken(token)
		res.Leaks = append(res.Leaks, left...)
		return err
	}
	left, err := runCg.Close(proc.Reap)
	for _, l := range left {
		res.Leaks = append(res.Leaks, "in the run's cgroup: "+l)
	}
	return err
}

// StopGrace is how long the run may take to end once it was told to (its --timeout passed, an
// interrupt, SIGTERM): Ginkgo's own grace for cleanup nodes is 30 s. After it the supervisor
// SIGKILLs Ginkgo's process group and the run's cgroup, whatever a launcher holds open.
const StopGrace = 45 * time.Second

// hardStop is when a run with this deadline must be over by the supervisor's own clock: Ginkgo
// enforces its --timeout itself, this is for a Ginkgo that cannot end (a pipe a left-behind
// process holds). Zero: none.
func hardStop(deadline time.Time) time.Time {
	if deadline.IsZero() {
		return deadline
	}
	return deadline.Add(StopGrace)
}

// supervise runs the ginkgo command to its end, forwarding the context's end (the CLI's first
// interrupt, helpers/base/interrupt) as SIGINT and a second interrupt as SIGKILL to its whole process
// group. Past the deadline, or StopGrace
// after the first interrupt, it kills the group and the run's cgroup and stops waiting.
func supervise(ctx context.Context, cmd *exec.Cmd, log io.Writer, end time.Time, runCg *cgroup.Cgroup) (ginkgoErr error, interrupted bool, err error) {
	// Output through a pipe of ours (a log that is no file) is given up a moment after Ginkgo
	// exits, whoever still holds the pipe.
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return nil, false, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var hard <-chan time.Time
	if !end.IsZero() {
		t := time.NewTimer(time.Until(end))
		defer t.Stop()
		hard = t.C
	}
	killAll := func(why string) {
		fmt.Fprintf(log, "\nclassproof: %s: sending %v to the run\n", why, syscall.SIGKILL)
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if runCg != nil {
			_ = runCg.Kill()
		}
	}
	// The CLI's one listener (helpers/base/interrupt) ends ctx on the first signal and closes again on
	// a second; a context ended otherwise (a caller's timeout) never counts as a second signal.
	again, sentInt := interrupt.Again(ctx), false
	stopRun := func() {
		interrupted = true
		if !sentInt {
			sentInt = true
			fmt.Fprintf(log, "\nclassproof: interrupted: sending %v to the run (again to kill it; killed anyway in %v)\n", syscall.SIGINT, StopGrace)
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
			t := time.NewTimer(StopGrace)
			hard = t.C
		}
	}
	cancelled := ctx.Done()
	for {
		select {
		case err := <-done:
			return err, interrupted, nil
		case <-again:
			again = nil
			interrupted = true
			killAll("interrupted again")
		case <-cancelled:
			cancelled = nil // once: the run's own cleanups take it from here
			stopRun()
		case <-hard:
			hard = nil
			interrupted = true
			killAll(fmt.Sprintf("the run did not end within %v of its deadline or interrupt", StopGrace))
		}
	}
}

// IsTerminal says whether w is a terminal (colour, progress lines) rather than a log or a pipe.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
