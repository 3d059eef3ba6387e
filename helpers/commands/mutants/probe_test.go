package mutants

import (
	"runtime"
	"strings"
	"testing"

	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/manifest"
	"github.com/classproof/classproof/helpers/report"
	"github.com/classproof/classproof/helpers/runner"
)

// The reference's probe names, for each class call, the specs where it came; a fault row then
// runs only those on that target (the whole-run spec too, when its sessions made the call), and a
// call never seen there is "never fired" without a run. A target whose reference counted nothing
// (no launcher instance closed) keeps its lanes whole.
func TestAFaultRunsOnlyWhereTheProbeSawItsCall(t *testing.T) {
	res := &runner.Result{Lane: "linux-idle", InjectCounted: true, Injected: 6, Run: &report.Run{Specs: []report.Spec{
		{Name: "b hosted", Calls: map[string]int64{"ioprio_set": 1, "sched_setattr": 2}},
		{Name: "a direct", Calls: map[string]int64{"sched_setattr": 1}},
		{Name: "c config"},
		{Name: contract.WholeRunPrefix + "cpuclass suite on Linux keeps ...", Calls: map[string]int64{"sched_setscheduler": 2}},
	}}}
	var ref Cell
	probed(&ref, res)
	ref.Target, ref.Lane = "embedded:refmux.yaml", "linux-idle"
	if got := strings.Join(ref.Calls["sched_setattr"], "|"); got != "a direct|b hosted" || len(ref.Calls) != 3 || strings.Join(ref.Lasting, "|") != "sched_setscheduler" {
		t.Fatalf("the probe's calls: %v, lasting %v", ref.Calls, ref.Lasting)
	}
	uncounted := Cell{Target: "embedded:refmux-seed.yaml"}
	probed(&uncounted, &runner.Result{Run: res.Run})
	o := Options{refs: ranFirst([]Cell{ref, uncounted})}
	refmux, seed := &manifest.Resolved{Ref: ref.Target}, &manifest.Resolved{Ref: uncounted.Target}

	focus, skip, ok := o.narrow(refmux, InjectPrefix+"ioprio_set:late")
	if !ok || skip != nil || focus != runner.FocusOn([]string{"b hosted"}) {
		t.Errorf("ioprio_set on refmux: focus %q, skip %v, ok %v; want only the hosted spec", focus, skip, ok)
	}
	_, skip, ok = o.narrow(refmux, InjectPrefix+"setpriority")
	if !ok || skip == nil || !skip.NotFired || skip.Probed != -1 || skip.Lane != "linux-idle" || !strings.Contains(skip.Why, "no setpriority call") {
		t.Errorf("setpriority, never seen on refmux: skip %+v, ok %v; want a never-fired cell that did not run", skip, ok)
	}
	if _, skip, ok = o.narrow(seed, InjectPrefix+"setpriority"); ok || skip != nil {
		t.Errorf("a target whose reference counted nothing: skip %v, ok %v; want its lane whole", skip, ok)
	}
	whole := contract.WholeRunPrefix + "cpuclass suite on Linux keeps ..."
	if focus, skip, ok = o.narrow(refmux, InjectPrefix+"sched_setscheduler:wrong"); !ok || skip != nil || focus != runner.FocusOn([]string{whole}) {
		t.Errorf("a call made in the sessions that last the whole suite: focus %q, skip %v, ok %v; want the whole-run spec", focus, skip, ok)
	}
	var short Cell
	res.Injected = 7 // one call no spec's report holds
	if probed(&short, res); short.Calls != nil || !strings.Contains(short.Why, "run whole") {
		t.Errorf("a probe whose specs' counts fall short of its calls: %v (%s); want no probe", short.Calls, short.Why)
	}
	if _, _, ok = o.narrow(refmux, "nice19"); ok {
		t.Error("a build variant without sites is no fault: its lane runs whole")
	}
	inject := []Value{{Name: "nice19"}, {Name: InjectPrefix + "setpriority"}}
	if got, want := probing(inject), runtime.GOOS == "linux"; got != want || probing(inject[:1]) {
		t.Errorf("probing: %v with a fault row (want %v), %v without", got, want, probing(inject[:1]))
	}
}

// A narrowed fault cell stands on a catch by any spec but the whole-run one: the reference ran
// that spec over the whole lane, never over a narrowed run's few specs.
func TestANarrowedCatchNeedsASpecTheReferenceRanAlike(t *testing.T) {
	whole := contract.WholeRunPrefix + "cpuclass suite on Linux keeps ..."
	for _, tc := range []struct {
		by   []string
		want bool
	}{{nil, false}, {[]string{whole}, false}, {[]string{"a direct", whole}, true}, {[]string{"a direct"}, true}} {
		if got := narrowedCatch(Cell{CaughtBy: tc.by}); got != tc.want {
			t.Errorf("caught by %q: %v, want %v", tc.by, got, tc.want)
		}
	}
}
