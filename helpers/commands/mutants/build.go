package mutants

import (
	"fmt"

	"github.com/classproof/classproof/helpers/manifest"
)

// CanBuild says, before any cell runs, whether t can be built as each of values: a variant that
// is a build (not an injected fault) is made by setting the var named var, which t must declare.
func CanBuild(t *manifest.Resolved, name string, values []Value) error {
	if _, ok := t.Manifest.Vars[name]; ok {
		return nil
	}
	for _, v := range values {
		if _, build := splitFault(v.Name); build != "" {
			return fmt.Errorf("target %s (%s) declares no var %q, which builds each variant of --values-file (%s is one): declare it under vars: with the reference build's value (e.g. %s: \"\"), name another with --var, or give --inject alone, which builds nothing",
				t.Manifest.Name, t.Ref, name, v.Name, name)
		}
	}
	return nil
}
