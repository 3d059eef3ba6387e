package manifest

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Placeholders every field may use, and the ones only some fields get. A var may use the
// built-ins (buildPlaceholders: the launcher's folders, known before anything starts) and other
// vars; it may not take a built-in's name.
var (
	buildPlaceholders   = []string{"kit", "bin", "repo", "cache"}
	commonPlaceholders  = append(append([]string{}, buildPlaceholders...), "dir", "home", "socket", "host_socket")
	sessionPlaceholders = []string{"profile"}
	reservedNames       = append(append([]string{}, commonPlaceholders...), "profile", "key", "value", "spec", "name", "n")
	// placeholderRE matches a placeholder, or "{{", which stands for a literal "{" (jq's {} and
	// {name} in an adapter's shell line); a "}" needs no escape.
	placeholderRE = regexp.MustCompile(`\{\{|\{([A-Za-z0-9_]*)\}`)
)

// literalBrace is how a manifest writes a "{" that is not a placeholder.
const literalBrace = "{{"

// MaxVarBytes bounds one var: its value as written (a manifest's, or --var's) and what it expands to.
const MaxVarBytes = 64 << 10

// ResolveVars expands the vars with the given built-in values and each other, in any order; a
// var that refers to an unknown name or, through others, to itself is an error naming it.
func (m *Manifest) ResolveVars(builtins map[string]string) (map[string]string, error) {
	r := &varResolver{m: m, builtins: builtins, out: map[string]string{}, state: map[string]int{}}
	names := m.varNames()
	sort.Strings(names)
	for _, n := range names {
		if err := r.resolve(n, nil); err != nil {
			return nil, err
		}
	}
	return r.out, nil
}

// varResolver expands vars depth first, each once.
type varResolver struct {
	m             *Manifest
	builtins, out map[string]string
	state         map[string]int // 1: expanding, 2: done
}

func (r *varResolver) resolve(name string, path []string) error {
	switch r.state[name] {
	case 2:
		return nil
	case 1:
		return fmt.Errorf("vars: a cycle: %s", strings.Join(append(path, name), " -> "))
	}
	r.state[name] = 1
	var err error
	fail := func(e error) {
		if err == nil {
			err = e
		}
	}
	raw, size := r.m.Vars[name], len(r.m.Vars[name])
	// Every piece is counted as it is put in: a var that doubles another 24 times must stop at
	// the bound, not after it has taken the memory.
	bounded := func(s string) string {
		if size += len(s); size > MaxVarBytes {
			fail(fmt.Errorf("vars.%s: expands to more than %d bytes (a var that repeats another, over and over?); a var holds a path or a word", name, MaxVarBytes))
		}
		if err != nil {
			return ""
		}
		return s
	}
	if size > MaxVarBytes { // the value as written counts, not only what its placeholders add
		fail(fmt.Errorf("vars.%s: %d bytes, more than %d; a var holds a path or a word", name, size, MaxVarBytes))
		r.state[name] = 2
		return err
	}
	r.out[name] = placeholderRE.ReplaceAllStringFunc(raw, func(p string) string {
		ref := p[1 : len(p)-1]
		switch _, isVar := r.m.Vars[ref]; {
		case p == literalBrace:
			return bounded("{")
		case hasKey(r.builtins, ref):
			return bounded(r.builtins[ref])
		case slices.Contains(buildPlaceholders, ref):
			fail(fmt.Errorf("vars.%s %q: {%s} has no value in this run (give it, e.g. --repo)", name, raw, ref))
			return p
		case !isVar:
			fail(fmt.Errorf("vars.%s %q: unknown placeholder {%s}; a var may use {%s} and other vars", name, raw, ref, strings.Join(buildPlaceholders, "}, {")))
			return p
		}
		if e := r.resolve(ref, append(path, name)); e != nil {
			fail(e)
		}
		return bounded(r.out[ref])
	})
	r.state[name] = 2
	return err
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}

func (m *Manifest) varNames() []string {
	var n []string
	for k := range m.Vars {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// SetVars overrides manifest vars from "k=v" pairs (the CLI's --var, $CLASSPROOF_VARS); only
// vars the manifest declares can be set, so a typo is an error and not a silent default.
func (m *Manifest) SetVars(pairs []string) error {
	for _, p := range pairs {
		if p == "" {
			continue
		}
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			return fmt.Errorf("var %q: expected NAME=VALUE", p)
		}
		if _, declared := m.Vars[k]; !declared {
			return fmt.Errorf("var %q: target %s declares no var %q; it declares: %s", p, m.Name, k, strings.Join(m.varNames(), ", "))
		}
		m.Vars[k] = v
	}
	return nil
}

// ReadsRepo says whether the launcher a run drives comes from {repo}: the build step reads it
// (its dir, run or env, directly or through a var) when there is one, else the daemon's command
// does. A red/green proof builds each side's commit as {repo}; a manifest that reads nothing of it
// would build and run the same launcher twice. why says what was looked at, when it is false.
func (m *Manifest) ReadsRepo() (ok bool, why string) {
	var words []string
	what := "daemon.run"
	if b := m.Build; b != nil {
		what = "build.dir, build.run and build.env"
		dir := b.Dir
		if dir == "" {
			dir = "{kit}"
		}
		words = append(append(words, dir), b.Run...)
		for _, v := range b.Env {
			words = append(words, v)
		}
	} else {
		words = m.Daemon.Run
	}
	for _, w := range words {
		if m.mentions(w, "repo", map[string]bool{}) {
			return true, ""
		}
	}
	return false, fmt.Sprintf("%s (%q) read nothing of {repo}, directly or through a var", what, strings.Join(words, " "))
}

// mentions says whether s holds {name}, or a var whose value does.
func (m *Manifest) mentions(s, name string, seen map[string]bool) bool {
	for _, p := range placeholderRE.FindAllStringSubmatch(s, -1) {
		switch v, isVar := m.Vars[p[1]]; {
		case p[0] == literalBrace:
		case p[1] == name:
			return true
		case isVar && !seen[p[1]]:
			seen[p[1]] = true
			if m.mentions(v, name, seen) {
				return true
			}
		}
	}
	return false
}
