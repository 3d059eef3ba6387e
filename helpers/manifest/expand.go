package manifest

import (
	"errors"
	"fmt"
	"strings"
)

// Expanded is a manifest command made ready to start: its argv, env and folder with every
// placeholder filled. It is made in one place, Expand, so every launcher process (the build step,
// the daemon and host, each client command) is named and refused the same way.
type Expanded struct {
	Field string // the manifest key of the argv: "build.run", "daemon.run", "config.set"
	Argv  []string
	Env   map[string]string
	Dir   string // "" when the command has no folder of its own
}

// At is where a command's parts sit in the manifest, so that an error names the one key that
// could not be filled. A client command's argv has a key of its own ("config.set") and may share
// an env with others ("config.env"); a section's parts are keys below it (Section).
type At struct{ Run, Env, Dir string }

// Section is where the parts of a command that is a manifest section sit: Section("build") is
// build.run, build.env and build.dir.
func Section(name string) At { return At{Run: name + ".run", Env: name + ".env", Dir: name + ".dir"} }

// Expand fills c's argv, env and folder with vals. An error names the manifest and the one key
// that could not be filled: "target manifest PATH: daemon.env.HOME: placeholders with no value
// here: {hme}".
func (m *Manifest) Expand(at At, c Command, vals map[string]string) (Expanded, error) {
	x := Expanded{Field: at.Run, Env: map[string]string{}}
	var err error
	if x.Argv, err = ExpandList(c.Run, vals); err != nil {
		return x, m.fieldError(at.Run, err)
	}
	for k, v := range c.Env {
		if x.Env[k], err = m.ExpandOne(at.Env+"."+k, v, vals); err != nil {
			return x, err
		}
	}
	if c.Dir != "" {
		x.Dir, err = m.ExpandOne(at.Dir, c.Dir, vals)
	}
	return x, err
}

// ExpandOne fills one value at the manifest key field (a ready socket, a config file, an env
// value), with Expand's error format.
func (m *Manifest) ExpandOne(field, v string, vals map[string]string) (string, error) {
	out, err := ExpandList([]string{v}, vals)
	if err != nil {
		return "", m.fieldError(field, err)
	}
	return out[0], nil
}

func (m *Manifest) fieldError(field string, err error) error {
	return fmt.Errorf("target manifest %s: %s: %w", m.Source, field, err)
}

// ExpandList replaces {name} placeholders in each of argv; an unknown one is an error (Validate
// catches those first) that names the placeholders, not where they sit: the caller says (a
// writes list, a binary's path).
func ExpandList(argv []string, vals map[string]string) ([]string, error) {
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
