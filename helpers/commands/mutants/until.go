package mutants

import (
	"context"

	"github.com/classproof/classproof/helpers/launcher"
)

// cell runs value on t: the whole lane, or under o.UntilCaught its first spec (o.First,
// checked on the reference) and then, unless they caught it, the lane until its first catch.
// The baseline always runs whole.
func cell(ctx context.Context, o Options, t *launcher.Resolved, value string) (Cell, error) {
	if !o.UntilCaught || value == "" {
		c, _, err := attempt(ctx, o, t, value, false, "")
		return c, err
	}
	first, err := firstOnly(ctx, o, t, value)
	if err != nil || len(first.CaughtBy) > 0 {
		return first, err
	}
	c, err := laneUntilCaught(ctx, o, t, value)
	c.Timing.add(first.Timing)
	return c, err
}

// firstOnly runs value on its first spec on t; a cell without one runs nothing.
func firstOnly(ctx context.Context, o Options, t *launcher.Resolved, value string) (Cell, error) {
	focus := o.firstFocus[firstKey(t.Spec, value)]
	if focus == "" {
		return Cell{Target: t.Spec}, nil
	}
	o.Focus = focus
	c, _, err := attempt(ctx, o, t, value, false, "first")
	c.First = err == nil && len(c.CaughtBy) > 0
	return c, err
}

// laneUntilCaught runs value on t's lane until its first failing spec; when that failure is
// not a catch (a setup broke, a run problem), the lane runs again whole, so that a catch a later
// spec would make is not lost.
func laneUntilCaught(ctx context.Context, o Options, t *launcher.Resolved, value string) (Cell, error) {
	c, _, err := attempt(ctx, o, t, value, true, "")
	if err != nil || len(c.CaughtBy) > 0 || c.Passed {
		return c, err
	}
	o.say("classproof mutants: %s on %s stopped at a failure that is not a catch (%s); running the lane whole", value, t.Spec, c.Why)
	full, _, err := attempt(ctx, o, t, value, false, "")
	full.Timing.add(c.Timing)
	return full, err
}

// byRow runs the until-caught table so that a variant is a yes as soon as one lane catches it:
// first every variant's first spec on each target, target by target, then every lane until caught, target by
// target, each step only for the variants no step has caught yet. A cell its variant's catch
// made unneeded does not run and says where the variant was caught; a variant no lane catches
// has run every spec of every lane.
func byRow(ctx context.Context, o Options, run []Value, base []Cell) ([]Cell, error) {
	n := len(o.Targets)
	all := jobs(run, n)
	out := make([]Cell, len(all))
	caughtOn := make([]string, len(run))
	laneRan := make([]bool, len(all))
	// A variant whose first spec broke setup (the kit's own class changed, say) would stop a
	// lane run until caught at the same break, and run the lane again whole: it runs whole now.
	broke := map[string]bool{}
	lane := func(ctx context.Context, o Options, t *launcher.Resolved, value string) (Cell, error) {
		if !broke[firstKey(t.Spec, value)] {
			return laneUntilCaught(ctx, o, t, value)
		}
		o.say("classproof mutants: %s on %s broke setup on its first spec; running the lane whole", value, t.Spec)
		c, _, err := attempt(ctx, o, t, value, false, "")
		return c, err
	}
	for step, each := range []runs{firstOnly, lane} {
		for t := 0; t < n; t++ {
			var now []job
			for _, j := range all {
				if j.Target == t && caughtOn[j.Index/n] == "" {
					now = append(now, j)
				}
			}
			got, err := runJobs(ctx, o, now, each)
			if err != nil {
				return nil, err
			}
			for i, j := range now {
				earlier := out[j.Index].Timing // its first spec's run, when this is its lane's
				got[i].Timing.add(earlier)
				got[i].Timing.Total += earlier.Total
				out[j.Index], laneRan[j.Index] = got[i], step == 1
				broke[firstKey(o.Targets[t].Spec, j.Value)] = len(got[i].Broken) > 0
				if len(got[i].CaughtBy) > 0 {
					caughtOn[j.Index/n] = got[i].Lane
				}
			}
		}
	}
	for _, j := range all {
		if c := &out[j.Index]; len(c.CaughtBy) == 0 && !laneRan[j.Index] && caughtOn[j.Index/n] != "" {
			c.Target, c.Lane, c.Broken, c.Passed, c.Why = o.Targets[j.Target].Spec, base[j.Target].Lane, nil, false, ""
			c.NotRun = "caught on " + caughtOn[j.Index/n] + " first"
			if c.Timing.Specs > 0 {
				c.NotRun += "; its first spec here did not catch it"
			}
		}
	}
	return out, nil
}
