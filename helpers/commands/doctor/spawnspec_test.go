package doctor

import (
	"strings"
	"testing"

	"github.com/classproof/classproof/helpers/manifest"
)

// Only a spawn_spec declared to rewrite specs is named as trusted: a plain transport (cspawn's
// send-spec) and one behind a judged translator say nothing.
func TestDoctorNamesARewritingSpawnSpecAsTrusted(t *testing.T) {
	send := []string{"myl", "send-spec", "{spec}"}
	for _, c := range []struct {
		name string
		m    manifest.Manifest
		warn bool
	}{
		{"rewriting adapter", manifest.Manifest{SpawnSpec: send, SpawnSpecRewrites: true}, true},
		{"transport", manifest.Manifest{SpawnSpec: send}, false},
		{"translator", manifest.Manifest{SpawnSpec: send, SpawnSpecTranslate: []string{"jq", "-c", ".", "{spec}"}}, false},
		{"no spawn_spec", manifest.Manifest{}, false},
	} {
		r := &Report{}
		checkSpawnSpec(r, &c.m)
		got := strings.Join(r.lines, "\n")
		if warned := strings.Contains(got, "[no ] spawn_spec hands the host each spec as the kit checked it") && strings.Contains(got, "trusted, not tested"); warned != c.warn {
			t.Errorf("%s: doctor said %q; want a trusted-not-tested line: %v", c.name, got, c.warn)
		}
	}
}
