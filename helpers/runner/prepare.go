package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/classproof/classproof/helpers/binaries"
)

// prepared is what the run has once the suites are compiled and the launcher is built.
type prepared struct {
	compiled binaries.Compiled
	bin      string    // the launcher's binaries
	deadline time.Time // Options.Deadline: what is left of it goes to Ginkgo
	cleanup  func()    // removes a temporary bin folder once the run is over
}

// prepare finds or builds the suites, then makes the launcher ready (binaries.Launcher: one
// error naming the manifest, the field and the value for a launcher that cannot be driven). Both
// answer ctx (the CLI's interrupt) and the run's --timeout, which take their process groups down;
// what is left of the timeout then goes to Ginkgo. stopped says the run ended here (res says why).
func prepare(ctx context.Context, o Options, res *Result, start time.Time) (pr prepared, stopped bool, err error) {
	pr = prepared{bin: o.BinDir, deadline: o.Deadline, cleanup: func() {}}
	prep := ctx
	if !o.Deadline.IsZero() {
		var cancel context.CancelFunc
		prep, cancel = context.WithDeadline(prep, o.Deadline)
		defer cancel()
	}
	t := time.Now()
	// The suites, the harness and the ginkgo CLI: built once per kit build key, shared. Found
	// (and their sums read) before the launcher's build runs: what that build does to them is
	// then caught by the Verify before Ginkgo starts.
	pr.compiled, err = binaries.Suites(prep, o.Target.Kit, o.Suites, !o.DryRun)
	if interruptedBefore(prep, res, "compiling the suites") {
		return pr, true, nil
	}
	if err != nil {
		return pr, false, err
	}
	res.phase("compile", t)
	t = time.Now()
	if !o.DryRun {
		pr.bin, pr.cleanup, err = binaries.Launcher(prep, o.Target, binaries.Where{Dir: o.BinDir, Built: o.BinDir != "", RunsAs: &res.Identity}, o.Log)
		if interruptedBefore(prep, res, "the launcher's build") {
			return pr, true, nil
		}
		if err != nil {
			return pr, false, err
		}
	}
	res.phase("preflight", t)
	return pr, false, nil
}

// interruptedBefore says whether prep ended (an interrupt, or the run's --timeout) and records it
// in res as a run that stopped during what, before any spec ran.
func interruptedBefore(prep context.Context, res *Result, what string) bool {
	if prep.Err() == nil {
		return false
	}
	why := "interrupted"
	if errors.Is(prep.Err(), context.DeadlineExceeded) {
		why = "out of time (--timeout)"
	}
	res.Interrupted = true
	res.Problems = append(res.Problems, fmt.Sprintf("%s during %s: no spec ran", why, what))
	return true
}
