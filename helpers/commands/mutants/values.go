package mutants

import (
	"fmt"
	"slices"
	"strings"

	"github.com/classproof/classproof/helpers/launcher"
)

// Value is one variant and what it breaks. A variant that means something only on some OSes
// (refmux's ignore-applies breaks Linux's ignore mode, which darwin does not have) names them in
// OnlyOn, with Why it means nothing elsewhere; elsewhere it is left out, never "not caught".
// Sites, where the launcher lists them, are the points of its code where the variant differs from
// the reference (refmux: the hooks it replaces): it runs only the specs whose launcher processes
// reached one in the reference's run (sites.go).
type Value struct {
	Name, Breaks string
	OnlyOn       []string `json:",omitempty"`
	Why          string   `json:",omitempty"`
	Sites        []string `json:",omitempty"`
}

// ParseValues reads a values file: one variant a line, NAME<TAB>what it breaks, then optionally
// <TAB>only=GOOS[,GOOS]: why it means nothing elsewhere, and <TAB>sites=SITE[,SITE...]. source
// names the file in errors.
func ParseValues(source string, b []byte) ([]Value, error) {
	var out []Value
	for i, line := range strings.Split(string(b), "\n") {
		f := strings.Split(line, "\t")
		name := strings.TrimSpace(f[0])
		if name == "" {
			continue
		}
		if slices.ContainsFunc(out, func(v Value) bool { return v.Name == name }) {
			return nil, fmt.Errorf("%s line %d: variant %q is listed twice; expected each name once", source, i+1, name)
		}
		v := Value{Name: name}
		if len(f) > 1 {
			v.Breaks = f[1]
		}
		for _, field := range f[min(len(f), 2):] {
			if err := v.option(field); err != nil {
				return nil, fmt.Errorf("%s line %d: %w", source, i+1, err)
			}
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no variants", source)
	}
	return out, nil
}

// option reads one field after what a variant breaks: only=GOOS[,GOOS]: why, or sites=SITE,...,
// each at most once.
func (v *Value) option(field string) error {
	if list, ok := strings.CutPrefix(strings.TrimSpace(field), "sites="); ok {
		sites := strings.Split(list, ",")
		if v.Sites != nil || slices.ContainsFunc(sites, func(s string) bool { return !launcher.SiteName(s) }) {
			return fmt.Errorf("field %q: expected one \"sites=SITE[,SITE...]\", each site 1 to 64 of A-Z a-z 0-9 _ . : -", field)
		}
		v.Sites = sites
		return nil
	}
	only, why, ok := strings.Cut(field, ":")
	goos, isOnly := strings.CutPrefix(strings.TrimSpace(only), "only=")
	if !ok || !isOnly || goos == "" || strings.TrimSpace(why) == "" || v.OnlyOn != nil {
		return fmt.Errorf("field %q: expected \"only=GOOS[,GOOS]: why it means nothing elsewhere\" or \"sites=SITE[,SITE...]\", each at most once", field)
	}
	v.OnlyOn, v.Why = strings.Split(goos, ","), strings.TrimSpace(why)
	return nil
}

// meansNothingOn says why v is left out on goos; "" when it means something there.
func (v Value) meansNothingOn(goos string) string {
	if len(v.OnlyOn) == 0 {
		return ""
	}
	for _, g := range v.OnlyOn {
		if g == goos {
			return ""
		}
	}
	return fmt.Sprintf("means something only on %s: %s", strings.Join(v.OnlyOn, ", "), v.Why)
}
