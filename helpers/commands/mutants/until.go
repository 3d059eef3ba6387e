package mutants

import (
	"context"
	"time"

	"github.com/classproof/classproof/helpers/manifest"
)

// cell runs value on t: the whole lane, or under o.UntilCaught its first spec (o.First,
// checked on the reference) and then, unless that caught it, its lane (laneAfter). The
// reference (value "") always runs whole.
func cell(ctx context.Context, o Options, t *manifest.Resolved, value string) (Cell, error) {
	if !o.UntilCaught || value == "" {
		c, _, err := attempt(ctx, o, t, value, false, "")
		return c, err
	}
	first, err := firstOnly(ctx, o, t, value)
	if err != nil || len(first.CaughtBy) > 0 {
		return first, err
	}
	c, err := laneAfter(ctx, o, t, value)
	c.Timing.add(first.Timing)
	return c, err
}

// laneAfter runs value's lane on t after its first spec missed, until caught. A first spec
// that broke setup does not make the lane run whole at once: alone it may break what it catches
// in the lane's order (inherited-autogroup's first spec, focused, breaks the kit's class in its
// cleanup; in the lane a compat spec catches it first), and laneUntilCaught runs the lane whole
// anyway when its first failure is not a catch. The reference's whole lane runs first, once per
// target (references.whole).
func laneAfter(ctx context.Context, o Options, t *manifest.Resolved, value string) (Cell, error) {
	if err := o.refs.whole(ctx, o, t); err != nil {
		return Cell{}, err
	}
	return laneUntilCaught(ctx, o, t, value)
}

// firstOnly runs value on its first spec on t; a cell without one runs nothing.
func firstOnly(ctx context.Context, o Options, t *manifest.Resolved, value string) (Cell, error) {
	focus := o.firstFocus[firstKey(t.Ref, value)]
	if focus == "" {
		return Cell{Target: t.Ref}, nil
	}
	o.Focus = focus
	c, _, err := attempt(ctx, o, t, value, false, "first")
	c.First = err == nil && len(c.CaughtBy) > 0
	return c, err
}

// laneUntilCaught runs value on t's lane until its first failing spec; when that failure is
// not a catch (a setup broke, a run problem), the lane runs again whole, so that a catch a later
// spec would make is not lost.
func laneUntilCaught(ctx context.Context, o Options, t *manifest.Resolved, value string) (Cell, error) {
	c, _, err := attempt(ctx, o, t, value, true, "")
	if err != nil || len(c.CaughtBy) > 0 || c.Passed {
		return c, err
	}
	o.say("classproof mutants: %s on %s stopped at a failure that is not a catch (%s); running the lane whole", value, t.Ref, c.Why)
	o.whole = true
	full, _, err := attempt(ctx, o, t, value, false, "")
	full.Timing.add(c.Timing)
	return full, err
}

// byRow runs the until-caught table a variant at a time, o.Jobs variants side by side, each
// its own chain (untilRow), so that a variant that must run a lane whole starts it as soon as
// its first specs are done, beside the other variants.
func byRow(ctx context.Context, o Options, run []Value, base []Cell) ([]Cell, error) {
	n := len(o.Targets)
	out := make([]Cell, len(run)*n)
	index := map[string]int{}
	rows := make([]job, len(run))
	for i, v := range run {
		index[v.Name], rows[i] = i, job{Index: i, Value: v.Name}
	}
	each := func(ctx context.Context, o Options, _ *manifest.Resolved, value string) (Cell, error) {
		cells, err := untilRow(ctx, o, value, base)
		i := index[value]
		copy(out[i*n:(i+1)*n], cells) // each row its own range: no lock needed
		return Cell{}, err
	}
	if _, err := runJobs(ctx, o, rows, each); err != nil {
		return nil, err
	}
	return out, nil
}

// untilRow is one variant until caught, since a variant caught on one lane is a yes: its first
// spec on each target in turn, then, if none caught it, each lane in turn (laneAfter). A cell
// its variant's catch made unneeded says where the variant was caught; a variant no lane
// catches has run every spec of every lane.
func untilRow(ctx context.Context, o Options, value string, base []Cell) ([]Cell, error) {
	cells := make([]Cell, len(o.Targets))
	laneRan := make([]bool, len(o.Targets))
	caughtOn := ""
	for step := 0; step < 2 && caughtOn == ""; step++ {
		for i, t := range o.Targets {
			began := time.Now()
			var c Cell
			var err error
			if step == 0 {
				c, err = firstOnly(ctx, o, t, value)
			} else {
				c, err = laneAfter(ctx, o, t, value)
			}
			if err != nil {
				return nil, err
			}
			c.Timing.add(cells[i].Timing)
			c.Timing.Total = cells[i].Timing.Total + time.Since(began).Seconds()
			cells[i], laneRan[i] = c, step == 1
			if len(c.CaughtBy) > 0 {
				caughtOn = c.Lane
				break
			}
		}
	}
	for i := range cells {
		if c := &cells[i]; len(c.CaughtBy) == 0 && !laneRan[i] && caughtOn != "" {
			c.Target, c.Lane, c.Broken, c.Passed, c.Why = o.Targets[i].Ref, base[i].Lane, nil, false, ""
			c.NotRun = "caught on " + caughtOn + " first"
			if c.Timing.Specs > 0 {
				c.NotRun += "; its first spec here did not catch it"
			}
		}
	}
	return cells, nil
}
