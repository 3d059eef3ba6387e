package launcher

import (
	"cmp"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/sandbox"
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

// buildCommand is the build step's argv and folder, expanded with vals; a folder the launcher's
// user cannot reach is an error naming what stops it.
func (d *Driver) buildCommand(vals map[string]string) (argv []string, dir string, err error) {
	b := d.Manifest.Build
	x, err := d.Manifest.Expand("build.run", b.Run, "build.env", nil, "build.dir", b.Dir, vals)
	if err != nil {
		return nil, "", err
	}
	argv, dir = x.Argv, cmp.Or(x.Dir, vals["kit"])
	// The launcher's user runs the build: its command must be one that user can run.
	if _, err := executable(sandbox.BuildIdentity(), argv[0], dir); err != nil {
		return nil, "", &BuildError{Manifest: d.Manifest.Source, Argv: argv, Dir: dir, Err: fmt.Errorf("build.run[0]: %w", err)}
	}
	// {bin} is handed to the launcher's user for the build: it must pass the folders on the way.
	id := sandbox.BuildIdentity()
	for what, err := range map[string]error{"folder": id.Reaches(dir), "{bin}": id.Passes(filepath.Dir(vals["bin"]))} {
		if err != nil {
			return nil, "", &BuildError{Manifest: d.Manifest.Source, Argv: argv, Dir: dir, Err: fmt.Errorf("the build step's %s is out of its reach: %w; make the folders on the way open to pass through (chmod o+x), or set %s=0 to build and run the launcher as root (run.json then says it held root)", what, err, contract.LauncherUIDEnv)}
		}
	}
	return argv, dir, nil
}
