package mutants

import (
	"context"
	"fmt"
	"sync"

	"github.com/classproof/classproof/helpers/manifest"
	"github.com/classproof/classproof/helpers/runner"
)

// references are the reference build's whole runs, one per target: what a catch is checked
// against (a spec the reference passes in the same kind of run) and, under the probe, where each
// class call came. The full table runs them all first. Under --until-caught a target's runs only
// the first time a cell needs its whole lane (a variant its first spec missed, a fault row
// without one), so a table whose every variant its first spec catches runs no whole lane.
type references struct {
	targets []string // by index, never changed: index reads it without the lock
	once    []sync.Once
	mu      sync.Mutex
	cells   []Cell // by target: its lane, and once run, the run
	err     []error
}

// ranFirst are references whose runs are done (the full table's baseline).
func ranFirst(base []Cell) *references {
	r := notRun(base)
	for i := range r.once {
		r.once[i].Do(func() {})
	}
	return r
}

func notRun(base []Cell) *references {
	r := &references{once: make([]sync.Once, len(base)), cells: base, err: make([]error, len(base))}
	for _, c := range base {
		r.targets = append(r.targets, c.Target)
	}
	return r
}

// lanesOnly are references not run yet: each target's lane, as the runner would pick it.
func lanesOnly(o Options) (*references, error) {
	base := make([]Cell, len(o.Targets))
	for i, t := range o.Targets {
		lane, err := runner.LaneFor(t.Manifest, "")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.Ref, err)
		}
		base[i] = Cell{Target: t.Ref, Lane: lane, NotRun: "--until-caught: the reference runs its lane whole only where a variant needs that lane"}
	}
	return notRun(base), nil
}

// whole runs t's reference lane, once; a reference that fails ends the matrix.
func (r *references) whole(ctx context.Context, o Options, t *manifest.Resolved) error {
	i := r.index(t.Ref)
	r.once[i].Do(func() {
		c, err := cell(ctx, o, t, "")
		if err == nil && !c.Passed {
			err = refFailed(o, t, c)
		}
		r.mu.Lock()
		r.cells[i], r.err[i] = c, err
		r.mu.Unlock()
	})
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err[i]
}

// baseline is every target's reference cell as it stands.
func (r *references) baseline() []Cell {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Cell(nil), r.cells...)
}

// probeOf is t's reference run under the probe, if it ran so and counted.
func (r *references) probeOf(target string) (Cell, bool) {
	c := r.cellOf(target)
	return c, c.Calls != nil
}

// sitesOf is t's reference run, if it recorded the sites its specs reached.
func (r *references) sitesOf(target string) (Cell, bool) {
	c := r.cellOf(target)
	return c, c.Sites != nil
}

// cellOf is t's reference cell as it stands; none without references.
func (r *references) cellOf(target string) Cell {
	if r == nil {
		return Cell{}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cells[r.index(target)]
}

func (r *references) index(target string) int {
	for i, t := range r.targets {
		if t == target {
			return i
		}
	}
	panic("mutants: no reference for " + target) // every target has one from the start
}

func refFailed(o Options, t *manifest.Resolved, c Cell) error {
	return fmt.Errorf("the reference build fails on %s (%d specs failed, %d broke setup; first: %s; its log is in %s): fix that before reading a kill matrix",
		t.Ref, len(c.CaughtBy), len(c.Broken), c.Why, o.OutDir)
}
