package mutants

import (
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/classproof/classproof/helpers/base/sandbox"
	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/runner"
)

// A fault changes what a launcher does only where it makes the fault's call: in a spec whose
// launcher processes never make it, the faulted run is the reference's. So the reference runs
// under sandbox.Probe (every class call counted, none changed), and each fault row then runs
// only the specs in whose processes its call came; a row whose call never came on a target
// is "never fired" there without a run of its own. The reference's own verdict stands: the
// probe lets every call go on as made.

// probing says whether the reference runs under the probe: on Linux (faults are injected with
// seccomp), when a row injects a fault.
func probing(run []Value) bool {
	if runtime.GOOS != "linux" {
		return false
	}
	return slices.ContainsFunc(run, func(v Value) bool { return strings.HasPrefix(v.Name, InjectPrefix) })
}

// probed records on the reference cell c, where its run counted the probe's calls, the specs in
// which each call came. A run that counted nothing (no launcher instance closed) records no
// probe, and its fault rows run their lanes whole.
func probed(c *Cell, res *runner.Result) {
	if !res.InjectCounted || res.Run == nil {
		return
	}
	c.Calls = map[string][]string{}
	for _, s := range res.Run.Specs {
		for call, n := range s.Calls {
			if n > 0 {
				c.Calls[call] = append(c.Calls[call], s.Name)
			}
		}
	}
	for _, specs := range c.Calls {
		slices.Sort(specs)
	}
}

// probes are the baseline's probe results by target, for narrow.
func probes(base []Cell) map[string]Cell {
	out := map[string]Cell{}
	for _, c := range base {
		if c.Calls != nil {
			out[c.Target] = c
		}
	}
	return out
}

// narrow is the focus a fault cell of t runs with: the specs where the probe saw its call. skip
// is a cell that needs no run, its call never made on t; ok false where no probe ran on t (the
// lane runs whole, as without one).
func (o Options) narrow(t *launcher.Resolved, fault string) (focus string, skip *Cell, ok bool) {
	ref, found := o.probes[t.Ref]
	if !found || fault == "" {
		return "", nil, false
	}
	call, _, _ := strings.Cut(fault, ":")
	specs := ref.Calls[call]
	if len(specs) == 0 {
		return "", &Cell{Target: t.Ref, Lane: ref.Lane, Passed: true, NotFired: true, Probed: -1,
			Why: fmt.Sprintf("the probe saw no %s call in the reference run of %s's lane: not run (%s)", call, t.Ref, sandbox.DescribeFault(sandbox.Probe))}, true
	}
	return runner.FocusOn(specs), nil, true
}
