// Package mutants runs the suites against every known-broken build of a target (a manifest var
// such as refmux's variant) and says which specs caught each one. A variant counts as caught only
// when a spec failed by its own assertion; a variant that only broke setup is reported as such,
// since a spec that fails for the wrong reason has not caught anything.
//
// CLI side: it must not import the Ginkgo DSL, Gomega, helpers/suite or fixtures/ (ci/layers.rules).
package mutants

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/classproof/classproof/helpers/manifest"
)

// Options select the matrix.
type Options struct {
	Targets []*manifest.Resolved // the launchers, resolved once by the CLI; each runs every value
	Var     string               // the manifest var that selects the variant
	Values  []Value
	OutDir  string
	Procs   int
	// Deadline ends the whole matrix (--timeout from when it started): every run gets it.
	Deadline time.Time
	Jobs     int // runs side by side (default 1)
	Progress io.Writer
	// UntilCaught stops each variant's lane at its first spec that fails by its own assertion:
	// the gate's yes/no question, answered sooner. A lane whose first failure is not a catch (its
	// setup broke) runs again whole, so a variant is caught exactly when the full table catches it.
	UntilCaught bool
	// Shard runs a deterministic share of the cells and writes a part (Merge joins the parts);
	// the zero Shard runs them all.
	Shard Shard
	// Focus narrows every run to the specs it matches (a Ginkgo focus): the kit's own tests run
	// small matrices with it. A part records it, and parts that differ are not merged.
	Focus string
	// First names, under UntilCaught, the spec each variant tries first on each lane (a full
	// table's first.tsv, read from FirstSource): a variant it catches needs no other spec.
	First       []FirstSpec
	FirstSource string
	firstFocus  map[string]string // by firstKey: the focus on a cell's first spec, once checked
	// NoProbe runs every row's lanes whole; probe runs the reference under faults.Probe
	// (probing), sites has it record the variant sites its specs reach (sites.go). refs are
	// the reference's runs; whole says a cell runs its lane whole, not narrowed.
	NoProbe bool
	probe   bool
	sites   bool
	refs    *references
	whole   bool
}

// Kill runs the baseline (the var empty) on every target, then every value on every target,
// o.Jobs runs side by side (each a whole run of every spec of its lane unless o.UntilCaught: the
// full table is the proof that each spec is tied to a promise).
func Kill(ctx context.Context, o Options) (*Matrix, error) {
	if o.Shard.Of != 0 {
		return nil, errors.New("a shard writes a part (RunShard), not a matrix")
	}
	// A matrix in the folder is this run's or none: an earlier one must not be read as the
	// result of a run that was interrupted or failed.
	if err := removeOld(o.OutDir, "matrix.json", "matrix.md", FirstFile); err != nil {
		return nil, err
	}
	began := time.Now()
	run, leftOut := plan(o.Values, runtime.GOOS)
	o.probe, o.sites = !o.NoProbe && probing(run), !o.NoProbe && recordingSites(run)
	var err error
	if o.UntilCaught {
		if o.refs, err = lanesOnly(o); err != nil {
			return nil, err
		}
	} else {
		base, err := baseline(ctx, o)
		if err != nil {
			return &Matrix{Baseline: base, Jobs: max(o.Jobs, 1)}, err
		}
		o.refs = ranFirst(base)
	}
	if o.firstFocus, err = firstSpecs(ctx, o, o.refs.baseline()); err != nil {
		return nil, err
	}
	var got []Cell
	if o.UntilCaught {
		got, err = byRow(ctx, o, run, o.refs.baseline())
	} else {
		got, err = runJobs(ctx, o, jobs(run, len(o.Targets)), cell)
	}
	if err != nil {
		return &Matrix{Baseline: o.refs.baseline(), Jobs: max(o.Jobs, 1)}, err
	}
	m := assemble(o.refs.baseline(), run, leftOut, len(o.Targets), got)
	m.Wall, m.Jobs, m.UntilCaught, m.Focus = time.Since(began).Seconds(), max(o.Jobs, 1), o.UntilCaught, o.Focus
	return m, write(o.OutDir, m)
}

// baseline runs the reference build on every target; a reference that fails ends the matrix.
func baseline(ctx context.Context, o Options) ([]Cell, error) {
	ref := make([]job, len(o.Targets))
	for j := range ref {
		ref[j] = job{Index: -1, Target: j}
	}
	base, err := runJobs(ctx, o, ref, cell)
	if err != nil {
		return nil, err
	}
	for i, c := range base {
		if !c.Passed {
			return base, refFailed(o, o.Targets[i], c)
		}
	}
	return base, nil
}

// assemble makes the matrix from the baseline and every cell, by job index (variant, then
// target): one run's cells and merged parts' alike.
func assemble(base []Cell, run []Value, leftOut []Row, targets int, cells []Cell) *Matrix {
	m := &Matrix{Baseline: base, OK: true}
	for i, v := range run {
		row := Row{Value: v, Cells: cells[i*targets : (i+1)*targets]}
		for _, c := range row.Cells {
			row.Caught = row.Caught || len(c.CaughtBy) > 0
		}
		row.LeftOut = neverFired(row.Cells)
		m.OK = m.OK && (row.Caught || row.LeftOut != "")
		m.Rows = append(m.Rows, row)
	}
	m.Rows = append(m.Rows, leftOut...)
	return m
}

func removeOld(dir string, names ...string) error {
	for _, f := range names {
		if err := os.Remove(filepath.Join(dir, f)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// plan splits the values into those that run on goos and the rows of those left out there.
func plan(values []Value, goos string) (run []Value, leftOut []Row) {
	for _, v := range values {
		if why := v.meansNothingOn(goos); why != "" {
			leftOut = append(leftOut, Row{Value: v, LeftOut: fmt.Sprintf("left out on %s: %s", goos, why)})
			continue
		}
		run = append(run, v)
	}
	return run, leftOut
}
