package launcher

import (
	"fmt"
	"maps"
	"path/filepath"
	"strings"
)

// Resolved is a launcher as one command drives it: its manifest, read once, with the vars the
// user set, and the folders its placeholders name. The CLI resolves it at its edge and hands it
// to runner, redgreen, mutants, bench and doctor; none of them reads the manifest again. (The
// suites, other processes, read it once each from Spec and Vars, which the run contract carries.)
type Resolved struct {
	Manifest *Manifest
	// Spec names the manifest as the suites load it: an absolute path, "embedded:NAME", or ""
	// for the catalog's default.
	Spec string
	Vars []string // NAME=VALUE, as set on Manifest
	Kit  string   // {kit}: the classproof module root (where suites/ is)
	Repo string   // {repo}: the launcher's source tree
}

// Resolve reads the manifest spec names (a path, relative to the current folder; "embedded:NAME";
// or "" for the catalog's default) and sets vars on it. Errors name the manifest and the var, so
// the CLI reports them once, before anything runs.
func Resolve(c Catalog, spec string, vars []string, kit, repo string) (*Resolved, error) {
	if spec != "" && !strings.HasPrefix(spec, EmbeddedPrefix) {
		// Absolute from here on: the suites run in their own folders, and reports are read
		// elsewhere.
		abs, err := filepath.Abs(spec)
		if err != nil {
			return nil, err
		}
		spec = abs
	}
	m, err := LoadSpec(spec, c.FS, c.Default)
	if err != nil {
		return nil, err
	}
	if err := m.SetVars(vars); err != nil {
		return nil, err
	}
	return &Resolved{Manifest: m, Spec: spec, Vars: append([]string(nil), vars...), Kit: kit, Repo: repo}, nil
}

// SpecFor is the manifest a command runs: the one named, else the catalog's own for the lane
// asked for (each lane has one), else "" (the default).
func (c Catalog) SpecFor(spec, lane string) string {
	if spec == "" && lane != "" && c.ForLane != nil {
		return c.ForLane(lane)
	}
	return spec
}

// WithVars is r with more vars set, later ones winning (a kill-matrix cell's variant); its
// manifest is a copy, r is unchanged.
func (r *Resolved) WithVars(vars ...string) (*Resolved, error) {
	m := *r.Manifest
	m.Vars = maps.Clone(r.Manifest.Vars)
	if err := m.SetVars(vars); err != nil {
		return nil, fmt.Errorf("target %s: %w", m.Name, err)
	}
	c := *r
	c.Manifest, c.Vars = &m, append(append([]string(nil), r.Vars...), vars...)
	return &c, nil
}

// InRepo is r building from another source tree (a red/green side's worktree).
func (r *Resolved) InRepo(repo string) *Resolved {
	c := *r
	c.Repo = repo
	return &c
}

// Paths are the folders r's placeholders name, with the launcher's binaries in bin.
func (r *Resolved) Paths(bin string) Paths {
	return Paths{Kit: r.Kit, Bin: bin, Repo: r.Repo}
}
