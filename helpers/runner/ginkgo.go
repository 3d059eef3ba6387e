package runner

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/classproof/classproof/helpers/build"

	"github.com/classproof/classproof/helpers/contract"
	"github.com/classproof/classproof/helpers/proc"
)

// ginkgoCommand is the ginkgo CLI at the version go.mod pins, over the build.Compiled suites, with the
// run's environment for the suites.
func ginkgoCommand(o Options, filter, out, ledger, token string, c build.Compiled) (*exec.Cmd, error) {
	args := []string{
		"--label-filter", filter,
		// Not --fail-on-empty: a suite may rightly select nothing for a target that lacks what it
		// needs (compat without a spawn-spec interface); an empty run as a whole fails instead.
		"--fail-on-pending", "--randomize-all", "--keep-going",
		"--poll-progress-after", "60s", "--poll-progress-interval", "30s",
		"--json-report", "report.json", "--junit-report", "junit.xml", "--output-dir", out,
	}
	if o.Timeout > 0 {
		args = append(args, "--timeout", o.Timeout.String())
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
	cmd := exec.Command(c.Ginkgo, append(args, c.Suites...)...)
	cmd.Dir = o.KitDir
	cmd.Stdout, cmd.Stderr = o.Log, o.Log
	spec := o.Target // absolute since plan
	run := contract.Run{Target: spec, Vars: o.Vars, Bin: o.BinDir, Repo: o.Repo, Kit: o.KitDir, Harness: c.Harness,
		Ledger: ledger, Supervisor: proc.Supervisor(), Token: token, Scale: contract.Current().Scale}
	cmd.Env = append(run.Over(os.Environ()), "GOWORK=off")
	// Its own session, and so its own process group, so that an interrupt reaches the test
	// processes too: the ginkgo CLI does not forward signals to them, and their DeferCleanups are
	// what kill the launchers. A session of its own is also an autogroup of its own on Linux
	// (sched(7), "The autogroup feature"): a launcher that writes the autogroup it inherits then
	// changes this lane's, where the kit sees it and fails the run (helpers/kit own.go), and never
	// the caller's shell, where it would outlive the run and fail every later one.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return cmd, nil
}

// supervise runs the ginkgo command to its end, forwarding an interrupt (SIGINT, then SIGKILL on
// a second one) or the context's end to its whole process group.
func supervise(ctx context.Context, cmd *exec.Cmd, log io.Writer) (ginkgoErr error, interrupted bool, err error) {
	if err := cmd.Start(); err != nil {
		return nil, false, err
	}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// One Ctrl-C reaches us twice when the caller's context listens for it too (the CLI's
	// commands do): the first of the two sends SIGINT, a second signal escalates to SIGKILL, and
	// a cancelled context never counts as a second one.
	signals, sentInt := 0, false
	interrupt := func() {
		interrupted = true
		if !sentInt {
			sentInt = true
			fmt.Fprintf(log, "\nclassproof: interrupted: sending %v to the run (again to kill it)\n", syscall.SIGINT)
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
		}
	}
	cancelled := ctx.Done()
	for {
		select {
		case err := <-done:
			return err, interrupted, nil
		case <-sigs:
			if signals++; signals > 1 {
				fmt.Fprintf(log, "\nclassproof: interrupted again: sending %v to the run\n", syscall.SIGKILL)
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				continue
			}
			interrupt()
		case <-cancelled:
			cancelled = nil // once: the run's own cleanups take it from here
			interrupt()
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
