package doctor

import (
	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/manifest"
)

// probe is one of the doctor's tries of a capability or convention (a manifest.Probe); has says
// whether the manifest has the first feature that names it (manifest.Features).
type probe func(r *Report, m *manifest.Manifest, d *launcher.Driver, l *launcher.Instance, has bool)

// probes are what the doctor does for each manifest.Probe; the feature table says in which order.
// A capability's probe says "not declared" where it is missing; a convention's is tried either
// way (it suggests what to declare), once a direct session starts.
var probes = map[manifest.Probe]probe{
	manifest.ProbeHosted:  probeHosted,
	manifest.ProbeExplain: probeExplain,
	manifest.ProbeConfig:  probeConfig,
	manifest.ProbeSpawnSpec: func(r *Report, m *manifest.Manifest, _ *launcher.Driver, _ *launcher.Instance, _ bool) {
		checkSpawnSpec(r, m)
	},
	manifest.ProbeRefusals: drivable(probeRefusals),
	manifest.ProbeFoldCase: drivable(probeFoldCase),
	manifest.ProbeEmpty:    drivable(probeEmpty),
}

// tryFeatures runs each probe once, where its first feature stands in the table.
func tryFeatures(r *Report, m *manifest.Manifest, d *launcher.Driver, l *launcher.Instance) {
	ran := map[manifest.Probe]bool{}
	for _, f := range manifest.Features() {
		if f.Probe == "" || ran[f.Probe] {
			continue
		}
		ran[f.Probe] = true
		probes[f.Probe](r, m, d, l, f.Has(m, d.Meaning))
	}
}

// drivable is p tried only where a direct session started: a convention is how sessions go.
func drivable(p probe) probe {
	return func(r *Report, m *manifest.Manifest, d *launcher.Driver, l *launcher.Instance, has bool) {
		if r.Drivable {
			p(r, m, d, l, has)
		}
	}
}

func probeHosted(r *Report, _ *manifest.Manifest, d *launcher.Driver, l *launcher.Instance, has bool) {
	if !has {
		r.check(false, "hosted sessions (session.hosted)", "not declared: the hosted specs are left out")
		return
	}
	s, err := l.StartSession(launcher.Hosted, nil)
	r.check(err == nil, "a hosted session starts the harness", sessionDetail(s, err))
	if err == nil {
		checkClass(r, d.Meaning, s)
	}
}

func probeExplain(r *Report, _ *manifest.Manifest, _ *launcher.Driver, l *launcher.Instance, has bool) {
	if !has {
		r.check(false, "explain", "not declared: the resolve order is read through the class alone")
		return
	}
	x, err := l.Explain(nil)
	r.check(err == nil && x.Class != "", "explain prints a class and its source", x.Output+errText(err))
}
