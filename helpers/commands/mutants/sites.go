package mutants

import (
	"maps"
	"slices"

	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/manifest"
	"github.com/classproof/classproof/helpers/runner"
)

// A hand-written variant differs from the reference only at its sites (Value.Sites, from the
// values file: for refmux the hooks it replaces): until a launcher process reaches one, it does
// what the reference does. So the reference runs with its processes recording the sites they
// reach (runner.Options.Sites, the manifest's sites_env), and a variant with sites runs only the
// specs where one was reached, as a fault row runs only where its call came (probe.go). What the
// launcher records and lists is a claim, and costs time when wrong, never a verdict: a narrowed
// cell that catches nothing, or only by the whole-run spec, runs its lane whole (attempt), so a
// miss is the full table's; a catch is a spec that fails on the variant and passes on the
// reference.

// recordingSites says whether the reference records sites: some variant that runs lists them.
func recordingSites(run []Value) bool {
	return slices.ContainsFunc(run, func(v Value) bool { return len(v.Sites) > 0 })
}

// reached records on the reference cell c the specs in which each site was reached
// (launcher.EverySite: a spec whose record the kit could not read, which counts for every site).
func reached(c *Cell, res *runner.Result) {
	if res.Run == nil {
		return
	}
	sites := map[string][]string{}
	for _, s := range res.Run.Specs {
		for site, n := range s.Sites {
			if n > 0 {
				sites[site] = append(sites[site], s.Name)
			}
		}
	}
	for _, specs := range sites {
		slices.Sort(specs)
	}
	c.Sites = sites
}

// narrowSites is the focus a hand-written variant's cell of t runs with: the specs where the
// reference reached one of its sites. ok is false where the lane runs whole: the variant lists
// no sites, t's reference recorded none, none of its sites was reached, the cell asks for its
// lane whole, or its specs are more than half of those that reached any site: a cell not caught
// there runs whole after its narrowed run, and on a lane where a variant is not caught (refmux's
// cached-class in ignore mode: resolved, in 108 of 150 specs) that would cost more than it saves.
func (o Options) narrowSites(t *manifest.Resolved, variant string) (focus string, ok bool) {
	ref, found := o.refs.sitesOf(t.Ref)
	i := slices.IndexFunc(o.Values, func(v Value) bool { return v.Name == variant })
	if !found || o.whole || i < 0 || len(o.Values[i].Sites) == 0 {
		return "", false
	}
	specs := reachedAt(ref.Sites, append(slices.Clone(o.Values[i].Sites), launcher.EverySite))
	if len(specs) == 0 || 2*len(specs) > len(reachedAt(ref.Sites, slices.Collect(maps.Keys(ref.Sites)))) {
		return "", false
	}
	return runner.FocusOn(specs), true
}

// reachedAt are the specs, sorted, that reached any of sites.
func reachedAt(bySite map[string][]string, sites []string) []string {
	var specs []string
	for _, site := range sites {
		for _, s := range bySite[site] {
			if !slices.Contains(specs, s) {
				specs = append(specs, s)
			}
		}
	}
	slices.Sort(specs)
	return specs
}

// where is how a narrowed cell of value chose its specs, for the log.
func where(value string) string {
	if fault, _ := splitFault(value); fault != "" {
		return "where its call came"
	}
	return "where its sites were reached"
}
