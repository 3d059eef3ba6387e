package mutants

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/classproof/classproof/helpers/manifest"
	"github.com/classproof/classproof/helpers/runner"
)

// FirstSpec is the spec an until-caught run tries first for a variant on a target's lane: one
// that caught it there in a full table. Which spec catches what is the full table's finding; the
// list only says where to look first, so a variant its spec misses still meets every spec.
type FirstSpec struct {
	Target  string `json:"target"`
	Lane    string `json:"lane"`
	Variant string `json:"variant"`
	Spec    string `json:"spec"`
}

// FirstFile is the name a full table's first specs are written under, beside matrix.json.
const FirstFile = "first.tsv"

// Cover names, for every variant a full table caught on a target's lane, one spec that caught
// it there, drawn from few specs per lane (so the reference checks few): the spec that caught
// the most variants not yet named, again and again, ties to the name that sorts first, so one
// table gives one list.
func Cover(m *Matrix) []FirstSpec {
	type group struct{ target, lane string }
	caught := map[group]map[string][]string{}
	var order []group
	for _, r := range m.Rows {
		for _, c := range r.Cells {
			if len(c.CaughtBy) == 0 {
				continue
			}
			g := group{c.Target, c.Lane}
			if caught[g] == nil {
				caught[g] = map[string][]string{}
				order = append(order, g)
			}
			caught[g][r.Value.Name] = c.CaughtBy
		}
	}
	var out []FirstSpec
	for _, g := range order {
		for v, s := range cover(caught[g]) {
			out = append(out, FirstSpec{Target: g.target, Lane: g.lane, Variant: v, Spec: s})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		return a.Target+"\t"+a.Lane+"\t"+a.Variant < b.Target+"\t"+b.Lane+"\t"+b.Variant
	})
	return out
}

// cover is a greedy set cover of the variants (each the specs that caught it): each variant and
// the spec that covered it.
func cover(variants map[string][]string) map[string]string {
	by := map[string]string{}
	for len(by) < len(variants) {
		count := map[string]int{}
		for v, specs := range variants {
			if by[v] == "" {
				for _, s := range specs {
					count[s]++
				}
			}
		}
		best := ""
		for s, n := range count {
			if n > count[best] || (n == count[best] && s < best) {
				best = s
			}
		}
		for v, specs := range variants {
			if by[v] == "" && slices.Contains(specs, best) {
				by[v] = best
			}
		}
	}
	return by
}

// FormatFirst is the list as first.tsv: comment lines, then TARGET<TAB>LANE<TAB>VARIANT<TAB>SPEC.
func FormatFirst(list []FirstSpec) []byte {
	var b strings.Builder
	b.WriteString("# The spec 'classproof mutants --until-caught --first FILE' tries first for a variant in a target's lane:\n")
	b.WriteString("# one that caught it there in a full table (written beside its matrix.json as " + FirstFile + ").\n")
	b.WriteString("# TARGET<TAB>LANE<TAB>VARIANT<TAB>SPEC\n")
	for _, f := range list {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\n", f.Target, f.Lane, f.Variant, f.Spec)
	}
	return []byte(b.String())
}

// ParseFirst reads a first.tsv; source names it in errors.
func ParseFirst(source string, b []byte) ([]FirstSpec, error) {
	var out []FirstSpec
	for i, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 || f[0] == "" || f[1] == "" || f[2] == "" || strings.TrimSpace(f[3]) == "" {
			return nil, fmt.Errorf("%s line %d: %q: expected TARGET<TAB>LANE<TAB>VARIANT<TAB>SPEC (a full run's %s)", source, i+1, line, FirstFile)
		}
		out = append(out, FirstSpec{Target: f[0], Lane: f[1], Variant: f[2], Spec: f[3]})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no specs listed", source)
	}
	return out, nil
}

// firstSpecs runs, on each target, the reference build focused on every first spec listed
// for it in its lane (the baseline says the lane), and returns the focus each cell tries first,
// by firstKey. A catch is a spec the reference passes in the same kind of run, so a lane keeps
// its first specs only when every one of them ran and passed there; otherwise the lane runs
// without them, as it would with no list, and the progress log says why.
func firstSpecs(ctx context.Context, o Options, base []Cell) (map[string]string, error) {
	if !o.UntilCaught || len(o.First) == 0 {
		return nil, nil
	}
	want, byVariant, err := firstWanted(o, base)
	if err != nil {
		return nil, err
	}
	var ref []job
	for i, t := range o.Targets {
		if len(want[t.Ref]) == 0 {
			o.say("classproof mutants: %s lists no first specs for %s in %s", o.FirstSource, t.Ref, base[i].Lane)
			continue
		}
		ref = append(ref, job{Index: -1, Target: i})
	}
	var mu sync.Mutex
	passed := map[string]int{}
	check := func(ctx context.Context, o Options, t *manifest.Resolved, _ string) (Cell, error) {
		o.Focus = runner.FocusOn(want[t.Ref])
		c, res, err := attempt(ctx, o, t, "", false, "first")
		mu.Lock()
		defer mu.Unlock()
		if res != nil {
			passed[t.Ref] = res.Count().Passed
		}
		return c, err
	}
	got, err := runJobs(ctx, o, ref, check)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for i, j := range ref {
		t := o.Targets[j.Target]
		if n := passed[t.Ref]; !got[i].Passed || n != len(want[t.Ref]) {
			o.say("classproof mutants: %s's first specs on %s: %d of %d ran and passed on the reference (%s); the lane runs without them",
				o.FirstSource, t.Ref, n, len(want[t.Ref]), got[i].Why)
			continue
		}
		for _, f := range byVariant[t.Ref] {
			out[firstKey(t.Ref, f.Variant)] = runner.FocusOn([]string{f.Spec})
		}
	}
	return out, nil
}

// firstWanted is, by target, the entries listed for its lane (under a focus, those whose spec
// the focus selects too) and their distinct specs, the reference's check.
func firstWanted(o Options, base []Cell) (want map[string][]string, byVariant map[string][]FirstSpec, err error) {
	focus, err := regexp.Compile(o.Focus)
	if err != nil {
		return nil, nil, fmt.Errorf("--focus %q: %w", o.Focus, err)
	}
	want, byVariant = map[string][]string{}, map[string][]FirstSpec{}
	for i, t := range o.Targets {
		for _, f := range o.First {
			if f.Target != t.Ref || f.Lane != base[i].Lane || !focus.MatchString(f.Spec) {
				continue
			}
			byVariant[t.Ref] = append(byVariant[t.Ref], f)
			if !slices.Contains(want[t.Ref], f.Spec) {
				want[t.Ref] = append(want[t.Ref], f.Spec)
			}
		}
	}
	return want, byVariant, nil
}

func firstKey(target, variant string) string { return target + "\x00" + variant }

func (o Options) say(format string, args ...any) {
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, format+"\n", args...)
	}
}
