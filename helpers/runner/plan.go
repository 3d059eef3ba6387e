package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/classproof/classproof/helpers/base/confine"
	"github.com/classproof/classproof/helpers/base/faults"
	"github.com/classproof/classproof/helpers/base/files"
	"github.com/classproof/classproof/helpers/base/identity"
	"github.com/classproof/classproof/helpers/base/limits"
	"github.com/classproof/classproof/helpers/base/proc"
	"github.com/classproof/classproof/helpers/lane"
	"github.com/classproof/classproof/helpers/manifest"
)

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
