package doctor

import (
	"slices"
	"testing"

	"github.com/classproof/classproof/helpers/manifest"
)

// Every probe the feature table names is one the doctor has, and every one the doctor has is
// named: a row whose probe the doctor lacks would stop its checklist, and one no row names never
// runs.
func TestEveryProbeIsInTheTableAndTheDoctor(t *testing.T) {
	named := map[manifest.Probe]bool{}
	for _, f := range manifest.Features() {
		if f.Probe == "" {
			continue
		}
		named[f.Probe] = true
		if probes[f.Probe] == nil {
			t.Errorf("%s (%s) names probe %q, which the doctor does not have", f.Label, f.Key, f.Probe)
		}
	}
	for p := range probes {
		if !named[p] {
			t.Errorf("the doctor's probe %q is named by no row of the feature table: it never runs", p)
		}
	}
}

// The checklist keeps the order a reader knows: the capabilities (hosted, explain, config, a
// spawn_spec on trust), then the conventions (what refusals name, folding, empty values).
func TestTheDoctorTriesInTheChecklistsOrder(t *testing.T) {
	var got []manifest.Probe
	for _, f := range manifest.Features() {
		if f.Probe != "" && !slices.Contains(got, f.Probe) {
			got = append(got, f.Probe)
		}
	}
	want := []manifest.Probe{manifest.ProbeHosted, manifest.ProbeExplain, manifest.ProbeConfig, manifest.ProbeSpawnSpec,
		manifest.ProbeRefusals, manifest.ProbeFoldCase, manifest.ProbeEmpty}
	if !slices.Equal(got, want) {
		t.Errorf("the doctor tries %v; want %v", got, want)
	}
}
