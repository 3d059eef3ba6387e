package mutants

import (
	"fmt"
	"slices"
	"strings"

	"github.com/classproof/classproof/helpers/base/contract"
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

// probing says whether the reference runs under the probe: where faults can be injected (Linux,
// seccomp), when a row injects one.
func probing(run []Value) bool {
	if sandbox.CheckFault(sandbox.Probe) != nil {
		return false
	}
	return slices.ContainsFunc(run, func(v Value) bool { return strings.HasPrefix(v.Name, InjectPrefix) })
}

// probed records on the reference cell c, where its run counted the probe's calls, the specs in
// which each call came, and in Lasting the calls made in sessions that last the whole suite (the
// whole-run spec's): a fault's effect there is judged over the suite's length, which a run
// narrowed to a few specs does not have, so such a row runs its lanes whole. A run whose specs'
// counts do not add up to the calls its processes answered (a call no spec's report holds: one
// made after its instance was recorded) records no probe, and its fault rows run whole too.
func probed(c *Cell, res *runner.Result) {
	if !res.InjectCounted || res.Run == nil {
		return
	}
	calls, lasting, sum := map[string][]string{}, map[string]bool{}, int64(0)
	for _, s := range res.Run.Specs {
		for call, n := range s.Calls {
			sum += n
			if n > 0 {
				calls[call] = append(calls[call], s.Name)
				lasting[call] = lasting[call] || strings.HasPrefix(s.Name, contract.WholeRunPrefix)
			}
		}
	}
	if sum != int64(res.Injected) {
		c.Why = fmt.Sprintf("the probe counted %d class calls and the specs' reports hold %d: its fault rows run whole", res.Injected, sum)
		return
	}
	for call, specs := range calls {
		slices.Sort(specs)
		if lasting[call] {
			c.Lasting = append(c.Lasting, call)
		}
	}
	slices.Sort(c.Lasting)
	c.Calls = calls
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
// is a cell that needs no run, its call never made on t; ok false where the lane runs whole: no
// probe ran on t, or the call came in the sessions that last the whole suite (probed).
func (o Options) narrow(t *launcher.Resolved, fault string) (focus string, skip *Cell, ok bool) {
	ref, found := o.probes[t.Ref]
	if !found || fault == "" {
		return "", nil, false
	}
	call, _, _ := strings.Cut(fault, ":")
	if slices.Contains(ref.Lasting, call) {
		return "", nil, false
	}
	specs := ref.Calls[call]
	if len(specs) == 0 {
		return "", &Cell{Target: t.Ref, Lane: ref.Lane, Passed: true, NotFired: true, Probed: -1,
			Why: fmt.Sprintf("the probe saw no %s call in the reference run of %s's lane: not run (%s)", call, t.Ref, sandbox.DescribeFault(sandbox.Probe))}, true
	}
	return runner.FocusOn(specs), nil, true
}
