package mutants

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/faults"
	"github.com/classproof/classproof/helpers/manifest"
	"github.com/classproof/classproof/helpers/report"
	"github.com/classproof/classproof/helpers/runner"
)

// attempt is one run of value on t; sub, when set, is a folder of its own under the cell's (a
// run focused on a first spec beside the cell's run of its lane).
func attempt(ctx context.Context, o Options, t *manifest.Resolved, value string, failFast bool, sub string) (Cell, *report.Run, error) {
	name := value
	if name == "" {
		name = "reference"
	}
	dir := filepath.Join(o.OutDir, strings.TrimSuffix(filepath.Base(strings.TrimPrefix(t.Ref, manifest.EmbeddedPrefix)), ".yaml"), name, sub)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Cell{}, nil, err
	}
	logf, err := os.Create(filepath.Join(dir, "ginkgo.log"))
	if err != nil {
		return Cell{}, nil, err
	}
	defer logf.Close()
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, "classproof mutants: %s on %s\n", name, t.Ref)
	}
	fault, build := splitFault(value)
	narrowed, focusBefore := false, o.Focus
	if focus, skip, ok := o.narrow(t, value); ok && sub == "" {
		if skip != nil {
			return *skip, nil, nil
		}
		o.Focus, narrowed = focus, true
	}
	if value == "" && sub == "" && o.probe {
		fault = faults.Probe
	}
	// Every run of a matrix that records sites has the launcher record them, the variants' too:
	// a launcher that sees the variable behaves alike in every cell, so a catch is still a spec
	// the reference passes in the same kind of run. Only the reference's whole run is read.
	variant := t // the reference build, and an injected fault's: the manifest's own vars
	if build != "" {
		var err error
		if variant, err = t.WithVars(o.Var + "=" + build); err != nil {
			return Cell{}, nil, err
		}
	}
	res, err := runner.Run(ctx, runner.Options{Target: variant, OutDir: dir, Procs: o.Procs, Log: logf, Focus: o.Focus, FailFast: failFast, Inject: fault, Sites: o.sites, Deadline: o.Deadline})
	if err != nil {
		return Cell{}, nil, err
	}
	c := cellOf(res, t.Ref, fault, narrowed)
	if value == "" && sub == "" && o.sites {
		reached(&c, res)
	}
	if narrowed && !narrowedCatch(c) {
		// A fault not caught where the probe saw its call meets every spec of its lane, over
		// the lane's length (the whole-run spec's horizon): a miss is the full table's, never
		// a narrowed run's. A catch by the whole-run spec alone is no catch here: no reference
		// ran it over so short a run.
		o.say("classproof mutants: %s on %s was not caught by the %d specs %s; running the lane whole", value, t.Ref, c.Probed, where(value))
		o.whole, o.Focus = true, focusBefore
		whole, run, err := attempt(ctx, o, t, value, failFast, sub)
		whole.Timing.add(c.Timing)
		return whole, run, err
	}
	return c, res.Run, nil
}

// cellOf is what a run of a cell says: which specs caught it, what broke, whether its fault
// fired (for the probe: which calls came where), and, for a fault run narrowed by the probe, how
// many specs it ran.
func cellOf(res *runner.Result, target, fault string, narrowed bool) Cell {
	c := Cell{Target: target, Lane: res.Lane, Passed: res.Passed(), Timing: timing(res)}
	if why := append(append(append([]string(nil), res.Problems...), res.Leaks...), res.Refused...); len(why) > 0 {
		c.Why = why[0]
	}
	if res.Run == nil {
		c.Broken = append(c.Broken, "no report")
		return c
	}
	for _, s := range res.Run.Setups {
		c.Broken = append(c.Broken, fmt.Sprintf("%s in %s", s.Node, s.Suite))
	}
	switch {
	case fault == faults.Probe:
		probed(&c, res)
	default:
		if narrowed {
			c.Probed = res.Run.Count().Ran
		}
		c.NotFired, c.Broken = firing(fault, res, c.Broken)
	}
	for _, s := range res.Run.Specs {
		if s.Outcome() == report.Failed && len(c.CaughtBy)+len(c.Broken) == 0 {
			c.Why = s.Name + ": " + report.FirstLine(s.Reason) // the first failure says more than a lane problem
		}
		switch {
		case s.Outcome() != report.Failed:
		case s.State == "failed" && s.InSpec:
			c.CaughtBy = append(c.CaughtBy, s.Name)
		default:
			c.Broken = append(c.Broken, fmt.Sprintf("%s (%s in %s)", s.Name, s.State, s.FailNode))
		}
	}
	sort.Strings(c.CaughtBy)
	return c
}

// narrowedCatch says a fault cell narrowed by the probe was caught by a spec whose reference run
// it can stand on: any but a suite's whole-run spec, which the reference ran over the lane's
// length only.
func narrowedCatch(c Cell) bool {
	return slices.ContainsFunc(c.CaughtBy, func(s string) bool { return !strings.HasPrefix(s, contract.WholeRunPrefix) })
}
