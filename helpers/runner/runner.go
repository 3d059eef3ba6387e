// Package runner runs the suites for one lane through the ginkgo CLI (the version go.mod pins),
// with the lane's label filter, reports in one folder, a run-wide pid ledger, and a sweep of that
// ledger afterwards, so that even a run killed halfway leaves no launcher process behind.
//
// CLI side: it must not import the Ginkgo DSL, Gomega, helpers/suite or fixtures/ (ci/layers.rules).
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/classproof/classproof/helpers/base/confine"
	"github.com/classproof/classproof/helpers/base/identity"
	"github.com/classproof/classproof/helpers/base/limits"
	"github.com/classproof/classproof/helpers/base/proc"
	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/manifest"
	"github.com/classproof/classproof/helpers/oracle"
	"github.com/classproof/classproof/helpers/report"
)

// Options select what to run.
type Options struct {
	// Target is the launcher, resolved once by the caller (manifest.Resolve): its manifest with
	// vars set, the kit folder (where suites/ is) and {repo}.
	Target      *manifest.Resolved
	Lane        string   // empty: the lane of this OS and the target
	Suites      []string // e.g. ./suites/cpuclass; empty: every suite
	OutDir      string
	Procs       int    // Ginkgo parallel processes; 0 or 1: serial
	LabelFilter string // ANDed with the lane's filter
	Focus       string
	// FailFast stops the run at its first failing spec (Ginkgo --fail-fast, and no suite after
	// the one that failed): mutants --until-caught. A run of the suites for a verdict never does.
	FailFast bool
	// Deadline ends the whole run: build, compile, suites (Ginkgo gets what is left); zero for
	// none. It is the command's --timeout (RunFlags.Deadline), one time for every run it makes.
	Deadline time.Time
	Log      io.Writer
	BinDir   string // a folder with the launcher already built: only checked, not built
	// DryRun lists what the lane would run without running anything (Ginkgo --dry-run), on any
	// OS: it is how the required-spec list is made for every lane from one machine.
	DryRun bool
	// ForeignLane runs a lane on an OS it is not for. Its specs for the lane's platform then skip
	// at run time, and run.json says forced; only the gate's own tests use it, to make the report
	// a misconfigured lane would make.
	ForeignLane bool
	// Inject is a class system call every launcher process sees succeed without effect (a
	// faults.Syscalls name; classproof mutants --inject), "" for none.
	Inject string
	// Sites asks the launcher's processes to record the variant sites they reach, where its
	// manifest names a variable for them (sites_env; a kill matrix's reference run).
	Sites bool
}

// Result is what a run left.
type Result struct {
	Manifest    *manifest.Manifest
	Lane        string
	Filter      string
	ReportPath  string
	JUnitPath   string
	Run         *report.Run
	GinkgoErr   error
	Leaks       []string
	Refused     []string // see Meta.Refused
	Interrupted bool
	// Stopped says why the run ended with no report: Ginkgo's exit status or signal and the
	// last of what it printed (see Meta.Stopped).
	Stopped  string
	Duration time.Duration
	// Problems are reasons the run fails beyond Ginkgo's own verdict.
	Problems []string
	Phases   map[string]float64 // see Meta.Phases
	// Containment is what the run had (see Meta.Containment).
	Containment string
	// LedgerAppendOnly says whether the pid ledger was append-only (see Meta.LedgerAppendOnly).
	LedgerAppendOnly string
	// LedgerChannel says which record of its harnesses the run had (see Meta.LedgerChannel).
	LedgerChannel string
	// Sandbox is what kept its launcher processes from writing the kit and the reports.
	Sandbox confine.State
	// Identity is who its launcher processes ran as.
	Identity identity.Identity
	// Limits are the bounds on its launcher processes; Peak is the most its launcher's own uid
	// held at once (limits.Limits.Watch).
	Limits limits.Limits
	Peak   limits.Peak
	// Left is what the run's own launcher uid left in the temp folder or /dev/shm, removed at
	// its end (see Meta.Left).
	Left []string
	// Injected: calls of Options.Inject answered, in any ABI, if InjectCounted (else unknown).
	Injected      int
	InjectCounted bool
}

// Passed is true when Ginkgo passed, nothing leaked and the lane ran its platform's specs.
func (r *Result) Passed() bool {
	return r.GinkgoErr == nil && len(r.Leaks) == 0 && len(r.Refused) == 0 && !r.Interrupted && len(r.Problems) == 0
}

// Run runs the suites and sweeps the ledger. An error means the run could not be made; a run
// whose specs failed returns a Result with GinkgoErr set.
func Run(ctx context.Context, o Options) (*Result, error) {
	start := time.Now()
	if o.Target == nil {
		return nil, errors.New("runner: no target: resolve one first (target.Resolve)")
	}
	m := o.Target.Manifest
	res, pl, err := begin(o)
	if err != nil {
		return nil, err
	}
	ledger := pl.ledger
	defer letGo(&pl)
	pr, stopped, err := prepare(ctx, o, res, start)
	defer pr.cleanup()
	if stopped || err != nil {
		return resultOr(res, stopped), err
	}
	// The run's token: the suites hand it to the launcher and the harness, and the sweep signals
	// only what carries it or descends from what does (proc.Tied).
	token := proc.NewRunToken()
	// What runs is what was built: the launcher's build ran after the suites were found.
	if err := pr.compiled.Verify(); err != nil {
		return nil, fmt.Errorf("before the suites run: %w", err)
	}
	runCg := runCgroup(res, token)
	// The last of what the suites printed, to say why a run that wrote no report stopped.
	last := &launcher.TailWriter{Max: 4 << 10}
	fmt.Fprintf(o.Log, "classproof: lane %s, target %s (%s), label filter %q\n", res.Lane, m.Name, m.Source, res.Filter)
	t := time.Now()
	callerBefore, callerErr := oracle.ObserveOne("classproof (the caller's process)", os.Getpid())
	g := ginkgoRun{o: o, pl: pl, pr: pr, ledger: ledger, token: token, runCg: runCg, last: last}
	if err := g.runWatched(ctx, res); err != nil {
		return nil, err
	}
	res.phase("ginkgo", t)
	closeChannel(res, &pl)
	if callerErr == nil && !o.DryRun {
		res.Problems = append(res.Problems, callerMoved(callerBefore)...)
	}
	if _, err := os.Stat(res.ReportPath); err != nil {
		res.Stopped = stoppedBecause(res, last.String())
	}
	t = time.Now()
	if err := sweep(res, &pl, token, runCg); err != nil {
		return res, &EndError{Step: EndSweep, Err: err}
	}
	res.phase("sweep", t)
	if err := pr.compiled.Verify(); err != nil {
		res.Problems = append(res.Problems, "a binary the run ran changed while it ran: "+err.Error())
	}
	res.Duration = time.Since(start)
	return res, finish(res, m, o, pl)
}

// resultOr is res for a run stopped before Ginkgo started (it says why), nil for one that failed.
func resultOr(res *Result, stopped bool) *Result {
	if stopped {
		return res
	}
	return nil
}

// phase records how long a step of the run took, in ms (see Meta.Phases).
func (r *Result) phase(name string, since time.Time) {
	r.Phases[name] = float64(time.Since(since).Microseconds()) / 1e3
}
