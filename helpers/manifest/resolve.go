package manifest

import (
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"strings"
)

// Resolved is a launcher as one command drives it: its manifest, read once, with the vars the
// user set, and the folders its placeholders name. The CLI resolves it at its edge and hands it
// to runner, redgreen, mutants, bench and doctor; none of them reads the manifest again. (The
// suites, other processes, read it once each from the Target and Vars the run contract carries.)
type Resolved struct {
	Manifest *Manifest
	// Ref names the manifest as the suites load it: an absolute path, "embedded:NAME", or ""
	// for the catalog's default.
	Ref  string
	Vars []string // NAME=VALUE, as set on Manifest
	Kit  string   // {kit}: the classproof module root (where suites/ is)
	Repo string   // {repo}: the launcher's source tree
}

// Resolve reads the manifest ref names (a path, relative to the current folder; "embedded:NAME";
// or "" for the catalog's default) and sets vars on it. It is the one maker of a Resolved: the
// CLI calls it at its edge and every suite process calls it again on what the run contract
// carries. Errors name the manifest and the var, so they are reported once, before anything runs.
func Resolve(c Catalog, ref string, vars []string, kit, repo string) (*Resolved, error) {
	if ref != "" && !strings.HasPrefix(ref, EmbeddedPrefix) {
		// Absolute from here on: the suites run in their own folders, and reports are read
		// elsewhere.
		abs, err := filepath.Abs(ref)
		if err != nil {
			return nil, err
		}
		ref = abs
	}
	m, err := LoadRef(ref, c.FS, c.Default)
	if err != nil {
		return nil, err
	}
	if err := m.SetVars(vars); err != nil {
		return nil, err
	}
	return &Resolved{Manifest: m, Ref: ref, Vars: append([]string(nil), vars...), Kit: kit, Repo: repo}, nil
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

// RefFor is the manifest a command runs: the one named, else the catalog's own for the lane
// asked for (each lane has one), else "" (the default).
func (c Catalog) RefFor(ref, lane string) string {
	if ref == "" && lane != "" && c.ForLane != nil {
		return c.ForLane(lane)
	}
	return ref
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

// Paths are the folders a manifest's placeholders point at.
type Paths struct {
	Kit  string // {kit}: the classproof module's root
	Bin  string // {bin}: where the build step puts (or put) the launcher
	Repo string // {repo}: the launcher's source tree, e.g. a red/green worktree; may be empty
}
