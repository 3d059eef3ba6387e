package manifest

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/oracle"
)

// Validate lists every problem at once, each naming the manifest, the field and the value.
func (m *Manifest) Validate() error {
	v := &validation{m: m}
	if m.Name == "" {
		v.add("name: missing")
	}
	if m.ClassEnv == "" {
		v.add("class_env: missing (the env var a profile sets to choose the class, e.g. REFMUX_SESSION_CPU_CLASS)")
	}
	v.sitesEnv()
	v.background()
	v.vars()
	v.commands()
	v.optional()
	m.Conventions.validate(m, v.add)
	if len(v.errs) > 0 {
		return fmt.Errorf("target manifest %s:\n  %s", m.Source, strings.Join(v.errs, "\n  "))
	}
	return nil
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// sitesEnv checks the optional sites_env: a variable's name of the launcher's own, which no
// program reads for itself (a matrix sets it in every run, never in make verify's).
func (v *validation) sitesEnv() {
	switch n := v.m.SitesEnv; {
	case n == "":
	case !envName.MatchString(n) || contract.Own(n):
		v.add("sites_env: %q: expected an environment variable's name (letters, digits, _), not the kit's own (%s...)", n, contract.Prefix)
	case n == v.m.ClassEnv || slices.Contains(systemEnv, n) || strings.HasPrefix(n, "LD_") || strings.HasPrefix(n, "DYLD_"):
		v.add("sites_env: %q is class_env or a variable the system reads (%s, LD_*, DYLD_*); expected one of the launcher's own", n, strings.Join(systemEnv, ", "))
	}
}

// systemEnv are variables a shell, a loader or the kit reads for itself.
var systemEnv = []string{"PATH", "HOME", "TMPDIR", "IFS", "ENV", "BASH_ENV", "SHELL", "USER", "LANG"}

type validation struct {
	m    *Manifest
	errs []string
}

func (v *validation) add(format string, a ...any) { v.errs = append(v.errs, fmt.Sprintf(format, a...)) }

func (v *validation) background() {
	for _, goos := range []string{"darwin", "linux"} {
		s, ok := v.m.Background[goos]
		switch {
		case !ok:
			v.add("background.%s: missing (what background means there; %q if the target does not run there)", goos, Unsupported)
		case s == Unsupported:
		default:
			if _, err := oracle.ParseMeaning(goos, s); err != nil {
				v.add("background.%s: %v, or %s", goos, err, Unsupported)
			}
		}
	}
	for k := range v.m.Background {
		if k != "darwin" && k != "linux" {
			v.add("background.%s: unknown OS; accepted: darwin, linux", k)
		}
	}
}

// vars checks that no var takes a built-in's name and that every var expands (no unknown
// placeholder, no cycle).
func (v *validation) vars() {
	for k := range v.m.Vars {
		if slices.Contains(reservedNames, k) {
			v.add("vars.%s: %q is a built-in placeholder; a var cannot shadow it (use another name)", k, k)
		}
	}
	builtins := map[string]string{}
	for _, b := range buildPlaceholders {
		builtins[b] = "{" + b + "}"
	}
	if _, err := v.m.ResolveVars(builtins); err != nil {
		v.add("%v", err)
	}
}

// check reports every placeholder in values that is not known in that field.
func (v *validation) check(field string, values []string, required bool, extra ...string) {
	if required && len(values) == 0 {
		v.add("%s: missing command", field)
	}
	allowed := append(append(append([]string{}, commonPlaceholders...), v.m.varNames()...), extra...)
	for i, a := range values {
		for _, sub := range placeholderRE.FindAllStringSubmatch(a, -1) {
			if sub[0] != literalBrace && !slices.Contains(allowed, sub[1]) {
				sort.Strings(allowed)
				v.add("%s[%d] %q: unknown placeholder {%s}; known here: {%s} (write {{ for a literal {)", field, i, a, sub[1], strings.Join(allowed, "}, {"))
			}
		}
	}
}

// writes checks a list of folders the sandbox lets the launcher write: known placeholders, and
// absolute once expanded (a relative one would depend on where a process starts).
func (v *validation) writes(field string, list []string) {
	v.check(field, list, false)
	for i, w := range list {
		if !strings.HasPrefix(w, "/") && !strings.HasPrefix(w, "{") {
			v.add("%s[%d] %q: not an absolute path (start it with / or a placeholder such as {repo} or {cache})", field, i, w)
		}
	}
}

func (v *validation) env(field string, env map[string]string, extra ...string) {
	for k, val := range env {
		v.check(field+"."+k, []string{val}, false, extra...)
	}
}

func (v *validation) service(field string, s Service) {
	v.check(field+".run", s.Run, true)
	v.env(field+".env", s.Env)
	r := s.Ready
	n := 0
	for _, set := range []bool{r.Socket != "", r.Path != "", len(r.Exec) > 0} {
		if set {
			n++
		}
	}
	if n > 1 {
		v.add("%s.ready: socket, path and exec are alternatives; give one", field)
	}
	v.check(field+".ready.socket", []string{r.Socket}, false)
	v.check(field+".ready.path", []string{r.Path}, false)
	v.check(field+".ready.exec", r.Exec, false)
}

func (v *validation) commands() {
	m := v.m
	if m.Build != nil {
		v.check("build.run", m.Build.Run, true)
		v.check("build.dir", []string{m.Build.Dir}, false)
		v.env("build.env", m.Build.Env)
		v.writes("build.writes", m.Build.Writes)
	}
	v.writes("writes", m.Writes)
	v.service("daemon", m.Daemon)
	if m.Host != nil {
		v.service("host", *m.Host)
	}
	v.check("session.direct", m.Session.Direct, true, sessionPlaceholders...)
	v.check("session.hosted", m.Session.Hosted, false, sessionPlaceholders...)
	v.check("spawn_spec", m.SpawnSpec, false, "spec")
	if len(m.SpawnSpec) > 0 && m.Host == nil {
		v.add("spawn_spec: needs a host (the agent host the spec is handed to)")
	}
	v.check("spawn_spec_translate", m.SpawnSpecTranslate, false, "spec")
	switch {
	case len(m.SpawnSpecTranslate) > 0 && len(m.SpawnSpec) == 0:
		v.add("spawn_spec_translate: needs spawn_spec, the command that hands the host the translated bytes")
	case len(m.SpawnSpecTranslate) > 0 && m.SpawnSpecRewrites:
		v.add("spawn_spec_translate: with a translator spawn_spec passes bytes as they are; spawn_spec_rewrites says the opposite: declare one")
	}
}

func (v *validation) optional() {
	m := v.m
	if r := m.EnvRef; r != nil {
		if !strings.Contains(r.Template, "{name}") {
			v.add("env_ref.template %q: must contain {name}", r.Template)
		}
	}
	if c := m.Config; c != nil {
		v.check("config.set", c.Set, true, "key", "value")
		v.check("config.get", c.Get, true, "key")
		v.check("config.unset", c.Unset, true, "key")
		v.check("config.file", []string{c.File}, true)
		v.env("config.env", c.Env)
		if c.Key == "" || c.FileKey == "" {
			v.add("config.key and config.file_key: both needed (the CLI spelling and the file's dotted path)")
		}
		if c.OtherKey != "" && !strings.Contains(c.OtherKey, "{n}") {
			v.add("config.other_key %q: must contain {n}", c.OtherKey)
		}
	}
	if e := m.Explain; e != nil {
		v.check("explain.run", e.Run, true, sessionPlaceholders...)
		re, err := regexp.Compile(e.Pattern)
		if err != nil {
			v.add("explain.pattern %q: %v", e.Pattern, err)
		} else if re.SubexpIndex("class") < 0 {
			v.add("explain.pattern %q: needs a named group (?P<class>...)", e.Pattern)
		}
		for k, p := range e.Sources {
			if !slices.Contains([]string{"profile", "daemon", "config", "default"}, k) {
				v.add("explain.sources.%s: unknown source; accepted: profile, daemon, config, default", k)
			}
			if _, err := regexp.Compile(p); err != nil {
				v.add("explain.sources.%s %q: %v", k, p, err)
			}
		}
	}
}
