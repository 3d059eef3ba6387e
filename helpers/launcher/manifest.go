// Package launcher is the contract between the suites and a launcher: a manifest says how to
// build, start and drive one launcher, and the driver does it. The suites talk to launchers only
// through this package, so a launcher in any language plugs in with a manifest.
//
// It must not import the Ginkgo DSL, Gomega or fixtures/: the CLI side uses it too.
package launcher

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/classproof/classproof/helpers/oracle"
)

// Manifest is one launcher's contract. See docs/manifest.md.
type Manifest struct {
	Source string `yaml:"-"` // where it was read from, for messages

	Name       string            `yaml:"name"`
	ClassEnv   string            `yaml:"class_env"`
	Background map[string]string `yaml:"background"`
	Vars       map[string]string `yaml:"vars"`
	Build      *Command          `yaml:"build"`
	Daemon     Service           `yaml:"daemon"`
	Host       *Service          `yaml:"host"`
	Session    Sessions          `yaml:"session"`
	EnvRef     *EnvRef           `yaml:"env_ref"`
	Config     *Config           `yaml:"config"`
	Explain    *Explain          `yaml:"explain"`
	SpawnSpec  []string          `yaml:"spawn_spec"` // optional: hand the agent host a raw spec file {spec}
	// SpawnSpecTranslate, with spawn_spec, turns a spec the kit writes ({spec}) into the host's
	// own bytes, printed on its stdout; spawn_spec then hands the host bytes as they are: each
	// spec translated, and each spec a host must refuse built from translated good bytes, so that
	// only the defect under test is wrong (spawnspec.go).
	SpawnSpecTranslate []string `yaml:"spawn_spec_translate"`
	// Writes are folders the launcher's processes (daemon, host, sessions, client commands and all
	// they start) may write beyond their own private folder {dir}; nothing else (helpers/base/sandbox).
	Writes []string `yaml:"writes"`
	// SpawnSpecRewrites says spawn_spec is an adapter that re-encodes a spec before the host
	// sees it, so bytes the host must refuse never reach it: those specs are left out.
	SpawnSpecRewrites bool `yaml:"spawn_spec_rewrites"`
	// Conventions are what the target chooses beyond the seed's promises; the specs for one it
	// does not declare are left out before the run, with the reason (see declares.go).
	Conventions Conventions `yaml:"conventions"`
}

// EnvRef is the target's syntax for a profile env value that refers to the daemon's environment.
type EnvRef struct {
	Template  string   `yaml:"template"`  // e.g. "${env:{name}}"
	Malformed []string `yaml:"malformed"` // references the target must refuse; {name} allowed
}

// Config is how the target's config CLI and file are driven.
type Config struct {
	Set      []string          `yaml:"set"`   // {key} {value}
	Get      []string          `yaml:"get"`   // {key}; prints the value
	Unset    []string          `yaml:"unset"` // {key}
	Env      map[string]string `yaml:"env"`
	File     string            `yaml:"file"`      // the config file, e.g. "{home}/refmux/config.json" (JSON)
	Key      string            `yaml:"key"`       // the class key as the CLI spells it
	KeyAlt   []string          `yaml:"key_alt"`   // other CLI spellings that must work too
	FileKey  string            `yaml:"file_key"`  // the dotted path the file must store it under
	OtherKey string            `yaml:"other_key"` // optional: a free key template with {n}, for preservation and concurrency
}

// Explain prints the class a profile would get and the source that decided it.
type Explain struct {
	Run     []string          `yaml:"run"`     // {profile}
	Pattern string            `yaml:"pattern"` // regexp with named groups class and source
	Sources map[string]string `yaml:"sources"` // profile, daemon, config, default -> regexp on source
}

// Command is an argv run in a directory with extra env.
type Command struct {
	Dir string            `yaml:"dir"`
	Run []string          `yaml:"run"`
	Env map[string]string `yaml:"env"`
	// Writes (the build step's) are folders it may write beyond {bin}, {cache} and its own
	// TMPDIR: a compiler's cache elsewhere, an output folder in {repo}.
	Writes []string `yaml:"writes"`
}

// Service is a long-running process (daemon or agent host) and how to know it is ready.
type Service struct {
	Run   []string          `yaml:"run"`
	Env   map[string]string `yaml:"env"`
	Ready Ready             `yaml:"ready"`
}

// Ready says when a service is ready, at most one way: a unix socket accepts a connection, a path
// (a file or a FIFO) exists, or a probe command exits 0. With none, it is ready once started.
type Ready struct {
	Socket string   `yaml:"socket"`
	Path   string   `yaml:"path"`
	Exec   []string `yaml:"exec"`
}

// Sessions are the client commands that start a harness from a profile file. Hosted is optional:
// a target without it has its hosted specs left out.
type Sessions struct {
	Direct []string `yaml:"direct"`
	Hosted []string `yaml:"hosted"`
}

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

// Load reads and validates a manifest from a file path.
func Load(path string) (*Manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("target manifest: %w", err)
	}
	return Parse(path, b)
}

// LoadFS reads a manifest from an embedded file system (the kit's default targets).
func LoadFS(fsys fs.FS, name string) (*Manifest, error) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("target manifest: %w", err)
	}
	return Parse("embedded:"+name, b)
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

// Catalog is the set of manifests a run can name as embedded:NAME, the one it uses when it names
// none, and the kit's own target for each lane. helpers/ knows no launcher by name: the catalog
// is made at the edge (cmd/classproof, the suites' bootstrap, tests) from fixtures/targets and
// passed down in each command's options; there is no package-level one.
type Catalog struct {
	FS      fs.FS
	Default string
	ForLane func(lane string) string
}

// EmbeddedPrefix names a manifest inside the kit's embedded set: "embedded:refmux-seed.yaml".
const EmbeddedPrefix = "embedded:"

// LoadSpec loads what a user named: a path, "embedded:NAME", or "" for defaultName in embedded.
func LoadSpec(spec string, embedded fs.FS, defaultName string) (*Manifest, error) {
	if embedded == nil && (spec == "" || strings.HasPrefix(spec, EmbeddedPrefix)) {
		return nil, fmt.Errorf("target manifest %q: no embedded catalog in this program; name a manifest file", spec)
	}
	switch {
	case spec == "":
		return LoadFS(embedded, defaultName)
	case strings.HasPrefix(spec, EmbeddedPrefix):
		return LoadFS(embedded, strings.TrimPrefix(spec, EmbeddedPrefix))
	}
	return Load(spec)
}

// Parse decodes strictly (a misspelt key is an error, not a silently missing setting) and
// validates.
func Parse(source string, b []byte) (*Manifest, error) {
	var m Manifest
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("target manifest %s: %w", source, err)
	}
	m.Source = source
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return &m, nil
}

// MaxVarBytes bounds what one var expands to.
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
	r.out[name] = placeholderRE.ReplaceAllStringFunc(raw, func(p string) string {
		ref := p[1 : len(p)-1]
		switch _, isVar := r.m.Vars[ref]; {
		case p == literalBrace:
			return bounded("{")
		case hasKey(r.builtins, ref):
			return bounded(r.builtins[ref])
		case contains(buildPlaceholders, ref):
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

// Ref is a reference to the daemon's env var name in the target's syntax.
func (m *Manifest) Ref(name string) string {
	if m.EnvRef == nil {
		return ""
	}
	return strings.ReplaceAll(m.EnvRef.Template, "{name}", name)
}

// Unsupported, as background.OS, says the target does not run on that OS.
const Unsupported = "unsupported"

// Meaning is what background means for this target on goos; an error for an OS the target does
// not run on, naming it.
func (m *Manifest) Meaning(goos string) (oracle.Meaning, error) {
	v, ok := m.Background[goos]
	if !ok {
		return "", fmt.Errorf("target %s says nothing about background on %s", m.Name, goos)
	}
	if v == Unsupported {
		return "", fmt.Errorf("target %s does not run on %s (its manifest says background.%s: %s)", m.Name, goos, goos, Unsupported)
	}
	return oracle.ParseMeaning(goos, v)
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

// expand replaces {name} placeholders; an unknown one is an error (Validate catches those first).
func expand(argv []string, vals map[string]string) ([]string, error) {
	out := make([]string, len(argv))
	var bad []string
	for i, a := range argv {
		out[i] = placeholderRE.ReplaceAllStringFunc(a, func(p string) string {
			if p == literalBrace {
				return "{"
			}
			name := p[1 : len(p)-1]
			v, ok := vals[name]
			if !ok {
				bad = append(bad, p)
				return p
			}
			return v
		})
	}
	if len(bad) > 0 {
		return nil, errors.New("placeholders with no value here: " + strings.Join(bad, ", "))
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
