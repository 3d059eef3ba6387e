package launcher

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

// Expand fills run, env and dir (at the manifest keys field, field's env and field's dir; dir ""
// for none) with vals. An error names the manifest and the one key that could not be filled:
// "target manifest PATH: daemon.env.HOME: placeholders with no value here: {hme}".
func (m *Manifest) Expand(field string, run []string, envField string, env map[string]string, dirField, dir string, vals map[string]string) (Expanded, error) {
	x := Expanded{Field: field, Env: map[string]string{}}
	var err error
	if x.Argv, err = expand(run, vals); err != nil {
		return x, m.fieldError(field, err)
	}
	for k, v := range env {
		if x.Env[k], err = m.ExpandOne(envField+"."+k, v, vals); err != nil {
			return x, err
		}
	}
	if dir != "" {
		x.Dir, err = m.ExpandOne(dirField, dir, vals)
	}
	return x, err
}

// ExpandOne fills one value at the manifest key field (a ready socket, a config file, an env
// value), with Expand's error format.
func (m *Manifest) ExpandOne(field, v string, vals map[string]string) (string, error) {
	out, err := expand([]string{v}, vals)
	if err != nil {
		return "", m.fieldError(field, err)
	}
	return out[0], nil
}

func (m *Manifest) fieldError(field string, err error) error {
	return fmt.Errorf("target manifest %s: %s: %w", m.Source, field, err)
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
