// Package target is the contract between the suites and a launcher: a manifest says how to
// build, start and drive one launcher, and the driver does it. The suites talk to launchers only
// through this package, so a launcher in any language plugs in with a manifest.
package target

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

	"github.com/classproof/classproof/helpers/class"
)

// Manifest is one launcher's contract. See README.md, "Plug in your own launcher".
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
}

// Service is a long-running process (daemon or agent host) and how to know it is ready.
type Service struct {
	Run   []string          `yaml:"run"`
	Env   map[string]string `yaml:"env"`
	Ready Ready             `yaml:"ready"`
}

// Ready: the service is ready when this unix socket accepts a connection.
type Ready struct {
	Socket string `yaml:"socket"`
}

// Sessions are the client commands that start a harness from a profile file.
type Sessions struct {
	Direct []string `yaml:"direct"`
	Hosted []string `yaml:"hosted"`
}

// Placeholders every field may use, and the ones only some fields get.
var (
	commonPlaceholders  = []string{"kit", "bin", "repo", "dir", "home", "socket", "host_socket"}
	sessionPlaceholders = []string{"profile"}
	placeholderRE       = regexp.MustCompile(`\{([A-Za-z0-9_]*)\}`)
)

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

// EmbeddedPrefix names a manifest inside the kit's embedded set: "embedded:refmux-seed.yaml".
const EmbeddedPrefix = "embedded:"

// LoadSpec loads what a user named: a path, "embedded:NAME", or "" for defaultName in embedded.
func LoadSpec(spec string, embedded fs.FS, defaultName string) (*Manifest, error) {
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

// Validate lists every problem at once, each naming the manifest and the field.
func (m *Manifest) Validate() error {
	var errs []string
	add := func(format string, a ...any) { errs = append(errs, fmt.Sprintf(format, a...)) }
	if m.Name == "" {
		add("name: missing")
	}
	if m.ClassEnv == "" {
		add("class_env: missing (the env var a profile sets to choose the class, e.g. REFMUX_SESSION_CPU_CLASS)")
	}
	for _, goos := range []string{"darwin", "linux"} {
		v, ok := m.Background[goos]
		if !ok {
			add("background.%s: missing (what background means there)", goos)
			continue
		}
		if _, err := class.ParseMeaning(goos, v); err != nil {
			add("background.%s: %v", goos, err)
		}
	}
	for k := range m.Background {
		if k != "darwin" && k != "linux" {
			add("background.%s: unknown OS; accepted: darwin, linux", k)
		}
	}
	known := append(append([]string{}, commonPlaceholders...), m.varNames()...)
	check := func(field string, argv []string, required bool, extra ...string) {
		if required && len(argv) == 0 {
			add("%s: missing command", field)
		}
		allowed := append(append([]string{}, known...), extra...)
		for i, a := range argv {
			for _, sub := range placeholderRE.FindAllStringSubmatch(a, -1) {
				if !contains(allowed, sub[1]) {
					sort.Strings(allowed)
					add("%s[%d] %q: unknown placeholder {%s}; known here: {%s}", field, i, a, sub[1], strings.Join(allowed, "}, {"))
				}
			}
		}
	}
	if m.Build != nil {
		check("build.run", m.Build.Run, true)
		check("build.dir", []string{m.Build.Dir}, false)
	}
	check("daemon.run", m.Daemon.Run, true)
	check("daemon.ready.socket", []string{m.Daemon.Ready.Socket}, false)
	if m.Host != nil {
		check("host.run", m.Host.Run, true)
		check("host.ready.socket", []string{m.Host.Ready.Socket}, false)
	}
	check("session.direct", m.Session.Direct, true, sessionPlaceholders...)
	check("session.hosted", m.Session.Hosted, true, sessionPlaceholders...)
	check("spawn_spec", m.SpawnSpec, false, "spec")
	if r := m.EnvRef; r != nil {
		if !strings.Contains(r.Template, "{name}") {
			add("env_ref.template %q: must contain {name}", r.Template)
		}
	}
	if c := m.Config; c != nil {
		check("config.set", c.Set, true, "key", "value")
		check("config.get", c.Get, true, "key")
		check("config.unset", c.Unset, true, "key")
		check("config.file", []string{c.File}, true)
		if c.Key == "" || c.FileKey == "" {
			add("config.key and config.file_key: both needed (the CLI spelling and the file's dotted path)")
		}
		if c.OtherKey != "" && !strings.Contains(c.OtherKey, "{n}") {
			add("config.other_key %q: must contain {n}", c.OtherKey)
		}
	}
	if e := m.Explain; e != nil {
		check("explain.run", e.Run, true, sessionPlaceholders...)
		re, err := regexp.Compile(e.Pattern)
		if err != nil {
			add("explain.pattern %q: %v", e.Pattern, err)
		} else if re.SubexpIndex("class") < 0 {
			add("explain.pattern %q: needs a named group (?P<class>...)", e.Pattern)
		}
		for k, v := range e.Sources {
			if !contains([]string{"profile", "daemon", "config", "default"}, k) {
				add("explain.sources.%s: unknown source; accepted: profile, daemon, config, default", k)
			}
			if _, err := regexp.Compile(v); err != nil {
				add("explain.sources.%s %q: %v", k, v, err)
			}
		}
	}
	if m.Background["linux"] == string(class.Ignored) && m.Explain == nil {
		add("explain: needed when background.linux is ignore: the class has no visible effect there, so the resolve order can only be read through explain")
	}
	if len(errs) > 0 {
		return fmt.Errorf("target manifest %s:\n  %s", m.Source, strings.Join(errs, "\n  "))
	}
	return nil
}

// Ref is a reference to the daemon's env var name in the target's syntax.
func (m *Manifest) Ref(name string) string {
	if m.EnvRef == nil {
		return ""
	}
	return strings.ReplaceAll(m.EnvRef.Template, "{name}", name)
}

// Meaning is what background means for this target on goos.
func (m *Manifest) Meaning(goos string) (class.Meaning, error) {
	v, ok := m.Background[goos]
	if !ok {
		return "", fmt.Errorf("target %s says nothing about background on %s", m.Name, goos)
	}
	return class.ParseMeaning(goos, v)
}

func (m *Manifest) varNames() []string {
	var n []string
	for k := range m.Vars {
		n = append(n, k)
	}
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
