package mutants

import (
	"testing"

	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/manifest"
	"github.com/classproof/classproof/helpers/report"
	"github.com/classproof/classproof/helpers/runner"
)

// The reference names, for each site, the specs whose launcher processes reached it; a variant
// with sites then runs only those (and any spec whose record the kit could not read), and a
// variant without sites, one whose sites no spec reached or more than half of the specs that
// reached any did (noclass here: 6 of 8), or a target whose reference recorded none, runs its
// lane whole.
func TestAVariantRunsOnlyWhereItsSitesWereReached(t *testing.T) {
	res := &runner.Result{Lane: "linux-idle", Run: &report.Run{Specs: []report.Spec{
		{Name: "b config set", Sites: map[string]int64{"lock": 1, "keySegment": 2}},
		{Name: "a direct", Sites: map[string]int64{"launch": 3, "keySegment": 1}},
		{Name: "c no launcher"},
		{Name: "d spoiled", Sites: map[string]int64{launcher.EverySite: 1}},
		{Name: "e hosted", Sites: map[string]int64{"launch": 1}},
		{Name: "f hosted", Sites: map[string]int64{"launch": 1}},
		{Name: "g hosted", Sites: map[string]int64{"launch": 1}},
		{Name: "h hosted", Sites: map[string]int64{"launch": 1}},
	}}}
	var ref Cell
	reached(&ref, res)
	ref.Target = "embedded:refmux.yaml"
	if got := ref.Sites["keySegment"]; len(got) != 2 || got[0] != "a direct" || got[1] != "b config set" || len(ref.Sites) != 4 || len(ref.Sites["launch"]) != 5 {
		t.Fatalf("the reference's sites: %v", ref.Sites)
	}
	none := Cell{Target: "embedded:shmux.yaml"}
	o := Options{refs: ranFirst([]Cell{ref, none}), Values: []Value{
		{Name: "no-lock", Sites: []string{"lock"}},
		{Name: "snake-key", Sites: []string{"keySegment", "lock"}},
		{Name: "nowhere", Sites: []string{"guessClass"}},
		{Name: "no-size-limit"},
		{Name: "noclass", Sites: []string{"launch"}},
	}}
	refmux, shmux := &manifest.Resolved{Ref: ref.Target}, &manifest.Resolved{Ref: none.Target}
	for variant, want := range map[string][]string{
		"no-lock":   {"b config set", "d spoiled"},
		"snake-key": {"a direct", "b config set", "d spoiled"},
		"nowhere":   {"d spoiled"},
	} {
		focus, skip, ok := o.narrow(refmux, variant)
		if !ok || skip != nil || focus != runner.FocusOn(want) {
			t.Errorf("%s: focus %q, skip %v, ok %v; want %q", variant, focus, skip, ok, want)
		}
	}
	for _, tc := range []struct {
		t       *manifest.Resolved
		variant string
	}{{refmux, "no-size-limit"}, {refmux, "unlisted"}, {shmux, "no-lock"}, {refmux, "noclass"}} {
		if focus, skip, ok := o.narrow(tc.t, tc.variant); ok || skip != nil {
			t.Errorf("%s on %s: focus %q, skip %v; want its lane whole", tc.variant, tc.t.Ref, focus, skip)
		}
	}
	res.Run.Specs = append(res.Run.Specs[:3], res.Run.Specs[4:]...)
	var clean Cell
	reached(&clean, res)
	clean.Target = ref.Target
	if _, _, ok := (Options{refs: ranFirst([]Cell{clean}), Values: o.Values}).narrow(refmux, "nowhere"); ok {
		t.Error("a variant whose sites no spec reached was narrowed; want its lane whole")
	}
	o.whole = true
	if _, _, ok := o.narrow(refmux, "no-lock"); ok {
		t.Error("a cell that asks for its lane whole was narrowed")
	}
	if recordingSites(o.Values[3:4]) || !recordingSites(o.Values) {
		t.Error("recordingSites: the reference records sites exactly when a variant lists some")
	}
}
