package launcher

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/classproof/classproof/helpers/base/sandbox"
)

// instanceFolders are the folders of an instance's private folder: {home}, run (the sockets and
// the sites file) and tmp (TMPDIR).
var instanceFolders = []string{"home", "run", "tmp"}

// privateDir is short (unix socket paths are limited to about 104 bytes), 0700, and the
// launcher's user's. Its name says which process made it (cpPID-...): another Ginkgo process of
// the run tells this one's harnesses by their report paths where the process tree cannot
// (siblingFolders). It holds instanceFolders and, with sites, run/sites, empty and the
// launcher's: a sites file that is gone when the kit reads it was removed, which says nothing of
// the sites.
func privateDir(id sandbox.Identity, sites bool) (string, error) {
	dir, err := os.MkdirTemp(instanceBase(), fmt.Sprintf("cp%d-", os.Getpid()))
	if err != nil {
		return "", err
	}
	// Resolved: /tmp is /private/tmp on macOS, and a launcher that resolves the report path it
	// passes on would give a path the kit did not hand out (a false "not the harness").
	if real, rerr := filepath.EvalSymlinks(dir); rerr == nil {
		dir = real
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return dir, err
	}
	if err := id.Give(dir); err != nil {
		return dir, err
	}
	for _, sub := range instanceFolders {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o700); err != nil {
			return dir, err
		}
	}
	if sites {
		path := filepath.Join(dir, "run", "sites")
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			return dir, err
		}
		if err := id.Give(path); err != nil {
			return dir, err
		}
	}
	for _, sub := range instanceFolders {
		if err := id.Give(filepath.Join(dir, sub)); err != nil {
			return dir, err
		}
	}
	return dir, nil
}
