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
	"path/filepath"
	"runtime"
	"time"

	"github.com/classproof/classproof/helpers/base/confine"
	"github.com/classproof/classproof/helpers/base/faults"
	"github.com/classproof/classproof/helpers/base/files"
	"github.com/classproof/classproof/helpers/base/identity"
	"github.com/classproof/classproof/helpers/base/limits"
	"github.com/classproof/classproof/helpers/base/proc"
	"github.com/classproof/classproof/helpers/binaries"
	"github.com/classproof/classproof/helpers/lane"
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

// plan is what a run was decided to be before anything runs: returned, never written back into
// the caller's Options.
type plan struct {
	lane, filter string
	leftOut      map[string]string // the specs' labels left out for the target, with the reasons
	out          string            // the --out folder, absolute
	// ledger is the run's pid ledger: in out, or, where the launcher's user cannot reach out (a
	// root kit's --out below a folder of root's), in a folder of the run's it can (ledgerDir).
	ledger    string
	ledgerDir string // that folder, removed once the ledger is swept; "" for out
	// channel is the ledger channel of the run's uid (openChannel), nil where there is none.
	channel *proc.Channel
	// id is who the run's launcher processes run as (identity.ForRun); release lets go of a uid
	// of the run's own, killing and removing what it still has.
	id      identity.Identity
	release func() (leaks, left, failed []string)
	limits  limits.Limits // the bounds on its launcher processes
}

// prepared is what the run has once the suites are compiled and the launcher is built.
type prepared struct {
	compiled binaries.Compiled
	bin      string    // the launcher's binaries
	deadline time.Time // Options.Deadline: what is left of it goes to Ginkgo
	cleanup  func()    // removes a temporary bin folder once the run is over
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

// LaneFor is the lane of this OS for a target, or an error if the asked-for lane cannot run here:
// a darwin lane on Linux would filter or skip every darwin spec and pass with nothing proved.
func LaneFor(m *manifest.Manifest, asked string) (string, error) {
	meaning, err := m.Meaning(runtime.GOOS)
	if err != nil {
		return "", err
	}
	p, err := lane.Current(meaning)
	if err != nil {
		return "", err
	}
	if asked != "" && asked != p.Label {
		return "", fmt.Errorf("lane %s cannot run here: this is %s/%s and target %s's background here is %q, which is lane %s",
			asked, runtime.GOOS, runtime.GOARCH, m.Name, meaning, p.Label)
	}
	return p.Label, nil
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

// begin plans the run and makes its --out folder, clear of an earlier run's files.
func begin(o Options) (*Result, plan, error) {
	pl, err := planRun(o)
	if err != nil {
		return nil, pl, err
	}
	if pl.out, err = OutFolder(o.OutDir); err != nil {
		return nil, pl, err
	}
	res := &Result{Lane: pl.lane, Filter: pl.filter, Manifest: o.Target.Manifest, Sandbox: confine.Current(),
		ReportPath: filepath.Join(pl.out, "report.json"), JUnitPath: filepath.Join(pl.out, "junit.xml"), Phases: map[string]float64{}}
	if o.Inject != "" {
		if err := faults.Check(o.Inject); err != nil {
			return nil, pl, err
		}
	}
	// Nothing of an earlier run in this folder may be read as this one's.
	pl.ledger = filepath.Join(pl.out, "pids.ledger")
	// An earlier run's ledger that was left append-only (a kit stopped before its sweep) cannot
	// be removed until the flag is cleared.
	_ = proc.UnsealLedger(pl.ledger)
	for _, stale := range append([]string{res.ReportPath, res.JUnitPath, filepath.Join(pl.out, "run.json"), pl.ledger, channelCopy(pl.out), injectLog(pl.out)}, faults.InjectedCounts(injectLog(pl.out))...) {
		if err := os.Remove(stale); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, pl, fmt.Errorf("removing %s, left by an earlier run: %w", stale, err)
		}
	}
	if pl.limits, err = limits.Launcher(o.Procs); err != nil {
		return nil, pl, err
	}
	if pl.id, pl.release, err = identity.ForRun(); err != nil {
		return nil, pl, err
	}
	res.Identity, res.Limits = pl.id, pl.limits
	id := pl.id
	if id.Passes(pl.out) != nil {
		if pl.ledgerDir, err = id.TempDir("classproof-ledger-"); err != nil {
			pl.release()
			return nil, pl, err
		}
		pl.ledger = filepath.Join(pl.ledgerDir, "pids.ledger")
	}
	// The harness, as the launcher's user, appends to it.
	if err := errors.Join(proc.NewLedger(pl.ledger), id.Give(pl.ledger)); err != nil {
		os.RemoveAll(pl.ledgerDir)
		pl.release()
		return nil, pl, err
	}
	res.LedgerAppendOnly = sealLedger(pl.ledger, id)
	res.LedgerChannel = openChannel(&pl, id)
	return res, pl, nil
}

// phase records how long a step of the run took, in ms (see Meta.Phases).
func (r *Result) phase(name string, since time.Time) {
	r.Phases[name] = float64(time.Since(since).Microseconds()) / 1e3
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

// planRun decides the lane and the label filter: the lane's platform labels, then what the target
// lacks or does not declare (left out before the run, with its reason), then the caller's own
// filter.
func planRun(o Options) (plan, error) {
	m := o.Target.Manifest
	ln, err := LaneFor(m, o.Lane)
	if err != nil && (o.DryRun || o.ForeignLane) && o.Lane != "" {
		ln, err = o.Lane, nil
	}
	if err != nil {
		return plan{}, err
	}
	filter, _ := lane.Filter(ln)
	p, _ := lane.ByLabel(ln)
	leftOut := m.LeftOut(p.Meaning)
	if lo := manifest.LeftOutFilter(leftOut); lo != "" {
		filter = "(" + filter + ") && " + lo
	}
	if o.LabelFilter != "" {
		filter = "(" + filter + ") && (" + o.LabelFilter + ")"
	}
	return plan{lane: ln, filter: filter, leftOut: leftOut}, nil
}

// outFolder makes the --out folder and checks it is ours alone.
// OutFolder makes dir (absolute) and checks it is a folder of this user's alone on a trusted path:
// reports, the ledger and a bench's files are written there.
func OutFolder(dir string) (string, error) {
	out, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", err
	}
	if err := files.Private(out, true); err != nil {
		return "", fmt.Errorf("--out %s: %w; refusing to write reports and the pid ledger there (use a folder of your own)", dir, err)
	}
	if err := files.TrustedPath(out); err != nil {
		return "", fmt.Errorf("--out %s: %w; refusing to write reports and the pid ledger there (use a folder of your own)", dir, err)
	}
	return out, nil
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
