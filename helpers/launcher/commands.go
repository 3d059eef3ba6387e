package launcher

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/classproof/classproof/helpers/base/fsize"
	"github.com/classproof/classproof/helpers/manifest"
)

// ErrNotDeclared is returned for an optional part of the contract the manifest leaves out.
var ErrNotDeclared = errors.New("not declared in the target manifest")

// CommandError is a client command (config, explain) that exited non-zero; Output is what it said.
type CommandError struct {
	Field  string
	Argv   []string
	Output string
	Err    error
}

func (e *CommandError) Error() string {
	return fmt.Sprintf("%s %q: %v; it said:\n%s", e.Field, strings.Join(e.Argv, " "), e.Err, e.Output)
}

// ConfigSet runs the target's config set command; key is a CLI spelling.
func (l *Instance) ConfigSet(key, value string) (string, error) {
	return l.config("config.set", func(c *manifest.Config) []string { return c.Set }, key, value)
}

// ConfigSetLimited runs config set with its file size limit (RLIMIT_FSIZE) set to limit bytes, the
// same bytes on every OS and through no shell (helpers/base/fsize says why): a write past it fails as
// a full disk would.
func (l *Instance) ConfigSetLimited(key, value string, limit int64) (string, error) {
	prefix, err := fsize.Prefix(limit)
	if err != nil {
		return "", err
	}
	return l.config("config.set", func(c *manifest.Config) []string { return c.Set }, key, value, prefix...)
}

// ConfigGet runs the config get command and returns its trimmed output.
func (l *Instance) ConfigGet(key string) (string, error) {
	out, err := l.config("config.get", func(c *manifest.Config) []string { return c.Get }, key, "")
	return strings.TrimSpace(out), err
}

// ConfigUnset runs the config unset command.
func (l *Instance) ConfigUnset(key string) (string, error) {
	return l.config("config.unset", func(c *manifest.Config) []string { return c.Unset }, key, "")
}

func (l *Instance) config(field string, pick func(*manifest.Config) []string, key, value string, prefix ...string) (string, error) {
	c := l.d.Manifest.Config
	if c == nil {
		return "", fmt.Errorf("config: %w", ErrNotDeclared)
	}
	argv, out, err := l.run(manifest.At{Run: field, Env: "config.env"}, manifest.Command{Run: pick(c), Env: c.Env}, map[string]string{"key": key, "value": value}, prefix...)
	if err != nil {
		return out, &CommandError{Field: field, Argv: argv, Output: out, Err: err}
	}
	return out, nil
}

// ConfigFile is the path of the target's config file for this instance.
func (l *Instance) ConfigFile() (string, error) {
	if l.d.Manifest.Config == nil {
		return "", fmt.Errorf("config: %w", ErrNotDeclared)
	}
	return l.d.Manifest.ExpandOne("config.file", l.d.Manifest.Config.File, l.vals)
}

// Explained is what the explain command said.
type Explained struct {
	Class, Source, Output string
}

// Explain asks the target which class a profile with this env would get, and why.
func (l *Instance) Explain(profileEnv map[string]string) (Explained, error) {
	return l.ExplainAs("", profileEnv)
}

// ExplainAs is Explain for a profile of the given name, as StartSessionAs: where the launcher
// ignores the class, explain is the one place a class it keeps by a profile's name shows.
func (l *Instance) ExplainAs(name string, profileEnv map[string]string) (Explained, error) {
	e := l.d.Manifest.Explain
	if e == nil {
		return Explained{}, fmt.Errorf("explain: %w", ErrNotDeclared)
	}
	profile, _, _, err := l.writeProfile(name, profileEnv)
	if err != nil {
		return Explained{}, err
	}
	argv, out, err := l.run(manifest.At{Run: "explain.run"}, manifest.Command{Run: e.Run}, map[string]string{"profile": profile})
	if err != nil {
		return Explained{Output: out}, &CommandError{Field: "explain.run", Argv: argv, Output: out, Err: err}
	}
	re := regexp.MustCompile(e.Pattern) // checked in Validate
	m := re.FindStringSubmatch(out)
	if m == nil {
		return Explained{Output: out}, fmt.Errorf("explain said %q, which does not match explain.pattern %q", strings.TrimSpace(out), e.Pattern)
	}
	x := Explained{Class: m[re.SubexpIndex("class")], Output: out}
	if i := re.SubexpIndex("source"); i >= 0 {
		x.Source = m[i]
	}
	return x, nil
}

// SourcePattern is the manifest's regexp for how explain names one of the kit's sources
// (profile, daemon, config, default); empty when the manifest gives none.
func (d *Driver) SourcePattern(kitName string) string {
	if d.Manifest.Explain == nil {
		return ""
	}
	return d.Manifest.Explain.Sources[kitName]
}

// Conventions are the target's declared conventions.
func (l *Instance) Conventions() manifest.Conventions { return l.d.Manifest.Conventions }
