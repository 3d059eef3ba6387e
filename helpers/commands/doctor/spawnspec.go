package doctor

import (
	"github.com/classproof/classproof/helpers/manifest"
)

// checkSpawnSpec says when a spec's meaning is taken on trust (review H1): a spawn_spec declared
// to rewrite each spec (spawn_spec_rewrites) changes what the host is sent where the kit never
// sees it, so what a spec means to the host (its cpu_class, a newer daemon's fields) is the
// adapter's word, not tested. A translator is judged on every spec.
func checkSpawnSpec(r *Report, m *manifest.Manifest) {
	if len(m.SpawnSpec) == 0 || !m.SpawnSpecRewrites {
		return
	}
	r.check(false, "spawn_spec hands the host each spec as the kit checked it",
		"spawn_spec_rewrites: its adapter reshapes each spec unseen, so what a spec means to the host is trusted, not tested; "+
			"move the reshaping to spawn_spec_translate, which the kit judges on every spec, and let spawn_spec pass bytes as they are (docs/manifest.md)")
}
