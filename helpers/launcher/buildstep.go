package launcher

import (
	"cmp"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/identity"
	"github.com/classproof/classproof/helpers/manifest"
)

// logBuild says which command the build step runs, expanded: the manifest's template would hide
// a placeholder that expanded to nothing (an empty {repo}).
func logBuild(log io.Writer, name, dir string, argv []string) {
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = a
		if a == "" || strings.ContainsAny(a, " \t\n'\"") {
			quoted[i] = strconv.Quote(a)
		}
	}
	fmt.Fprintf(log, "classproof: building target %s in %s: %s\n", name, dir, strings.Join(quoted, " "))
}

// expandBuild is the build step expanded with vals, once for all its uses: its folder, when
// the manifest gives none, is {kit}.
func (d *Driver) expandBuild(vals map[string]string) (manifest.Expanded, error) {
	x, err := d.Manifest.Expand(manifest.Section("build"), *d.Manifest.Build, vals)
	x.Dir = cmp.Or(x.Dir, vals["kit"])
	return x, err
}

// reachable says whether the launcher's user can run the expanded build step x: its command, its
// folder and the way to {bin}; an error names what stops it.
func (d *Driver) reachable(x manifest.Expanded, vals map[string]string) error {
	id := identity.ForBuild()
	if _, err := executable(id, x.Argv[0], x.Dir); err != nil {
		return &BuildError{Manifest: d.Manifest.Source, Argv: x.Argv, Dir: x.Dir, Err: fmt.Errorf("build.run[0]: %w", err)}
	}
	// {bin} is handed to the launcher's user for the build: it must pass the folders on the way.
	for what, err := range map[string]error{"folder": id.Reaches(x.Dir), "{bin}": id.Passes(filepath.Dir(vals["bin"]))} {
		if err != nil {
			return &BuildError{Manifest: d.Manifest.Source, Argv: x.Argv, Dir: x.Dir, Err: fmt.Errorf("the build step's %s is out of its reach: %w; make the folders on the way open to pass through (chmod o+x), or set %s=0 to build and run the launcher as root (run.json then says it held root)", what, err, contract.LauncherUIDEnv)}
		}
	}
	return nil
}
