package mutants

import (
	"fmt"
	"slices"
	"strings"

	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/faults"
	"github.com/classproof/classproof/helpers/manifest"
	"github.com/classproof/classproof/helpers/runner"
)

// A fault changes what a launcher does only where it makes the fault's call: in a spec whose
// launcher processes never make it, the faulted run is the reference's. So the reference runs
// under faults.Probe (every class call counted, none changed), and each fault row then runs
// only the specs in whose processes its call came; a row whose call never came on a target
// is "never fired" there without a run of its own. The reference's own verdict stands: the
// probe lets every call go on as made.

// probing says whether the reference runs under the probe: where faults can be injected (Linux,
// seccomp), when a row injects one.
func probing(run []Value) bool {
	if faults.Check(faults.Probe) != nil {
		return false
	}
	return slices.ContainsFunc(run, func(v Value) bool { return strings.HasPrefix(v.Name, InjectPrefix) })
}

// probed records on the reference cell c, where its run counted the probe's calls, the specs in
// which each call came, and in Lasting the calls made in sessions that last the whole suite (the
// whole-run spec's): a fault row's focus then holds the whole-run spec, whose sessions last as
// long as the narrowed run, a shorter horizon than the lane's, so a narrowed cell that catches
// nothing, or only by the whole-run spec, runs its lane whole (attempt). A run whose specs' counts do not add up to the calls its
// processes answered (a call no spec's report holds: one made after its instance was recorded)
// records no probe, and its fault rows run whole.
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

// narrow is the focus a cell of t runs with: for a fault, the specs where the probe saw its call
// (the whole-run spec among them when the call came in its sessions); for a hand-written variant,
// those where its sites were reached (narrowSites). skip is a cell that needs no run, its call
// never made on t; ok false where the lane runs whole: no probe ran on t, or the cell asks for
// its lane whole.
func (o Options) narrow(t *manifest.Resolved, value string) (focus string, skip *Cell, ok bool) {
	fault, build := splitFault(value)
	if build != "" {
		focus, ok := o.narrowSites(t, build)
		return focus, nil, ok
	}
	ref, found := o.refs.probeOf(t.Ref)
	if !found || fault == "" || o.whole {
		return "", nil, false
	}
	call, _, _ := strings.Cut(fault, ":")
	specs := ref.Calls[call]
	if len(specs) == 0 {
		return "", &Cell{Target: t.Ref, Lane: ref.Lane, Passed: true, NotFired: true, Probed: -1,
			Why: fmt.Sprintf("the probe saw no %s call in the reference run of %s's lane: not run (%s)", call, t.Ref, faults.Describe(faults.Probe))}, true
	}
	return runner.FocusOn(specs), nil, true
}
