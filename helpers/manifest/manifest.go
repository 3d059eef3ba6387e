// Package manifest is a launcher's contract as its team writes it: the manifest read, validated
// and resolved (vars, placeholders, what it declares), and nothing run. helpers/launcher starts
// what a manifest says; this package never starts a process, so a manifest's errors are found
// and reported once, before anything runs.
//
// It must not import the Ginkgo DSL, Gomega or fixtures/: the CLI side uses it too.
package manifest

import (
	"fmt"
	"strings"

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
	// SpawnSpecTranslate, with spawn_spec, turns a spawn spec the kit writes ({spec}) into the
	// host's own bytes, printed on its stdout; spawn_spec then hands the host bytes as they are:
	// each spawn spec translated, and each one a host must refuse built from translated good
	// bytes, so that only the defect under test is wrong (spawnspec.go). Each translation is read
	// back by the kit and must mean what the spec means (specmeaning.go).
	SpawnSpecTranslate []string `yaml:"spawn_spec_translate"`
	// Writes are folders the launcher's processes (daemon, host, sessions, client commands and all
	// they start) may write beyond their own private folder {dir}; nothing else (helpers/base/confine).
	Writes []string `yaml:"writes"`
	// SpawnSpecRewrites says spawn_spec is an adapter that re-encodes a spawn spec before the host
	// sees it, so bytes the host must refuse never reach it: those specs are left out.
	SpawnSpecRewrites bool `yaml:"spawn_spec_rewrites"`
	// Conventions are what the target chooses beyond the seed's promises; the specs for one it
	// does not declare are left out before the run, with the reason (see features.go).
	Conventions Conventions `yaml:"conventions"`
	// SitesEnv names the variable through which a kill matrix's reference run asks the
	// launcher's processes to record the variant sites they reach: set to a file's path, each
	// process appends one line per site, its name. Optional; without it every hand-written
	// variant runs every spec (docs/results.md, "Sites").
	SitesEnv string `yaml:"sites_env"`
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

// Command is s as a Command, for Expand: a service has no folder or writes of its own.
func (s Service) Command() Command { return Command{Run: s.Run, Env: s.Env} }

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

// DaemonEnvRef is a reference to the daemon's env var name in the target's syntax.
func (m *Manifest) DaemonEnvRef(name string) string {
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
