package launcher

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/classproof/classproof/helpers/base/identity"
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
//
// Everything below it is made through one descriptor of it while it is still the kit's alone
// (root's 0700, which in a sticky temp folder no one else may rename), each handed over through
// that descriptor, and the folder itself last: once it is the launcher user's, a process of that
// user (another spec's: the uid is the run's) may rename it or what is in it and leave a symlink
// in its place, so the kit never again makes or writes anything below it by path (issue 68: root
// made run and tmp in a root-only folder of the launcher's choosing, in 2 of 5 launches, and a
// sites file written through a swapped run would truncate any file).
func privateDir(id identity.Identity, sites bool) (dir string, err error) {
	if dir, err = os.MkdirTemp(instanceBase(), fmt.Sprintf("cp%d-", os.Getpid())); err != nil {
		return "", err
	}
	// Resolved: /tmp is /private/tmp on macOS, and a launcher that resolves the report path it
	// passes on would give a path the kit did not hand out (a false "not the harness").
	if real, rerr := filepath.EvalSymlinks(dir); rerr == nil {
		dir = real
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return dir, fmt.Errorf("opening %s, which the kit just made (never through a symlink): %w", dir, err)
	}
	defer unix.Close(fd)
	if err := unix.Fchmod(fd, 0o700); err != nil {
		return dir, fmt.Errorf("making %s the kit's alone: %w", dir, err)
	}
	for _, sub := range instanceFolders {
		if err := unix.Mkdirat(fd, sub, 0o700); err != nil {
			return dir, fmt.Errorf("making %s in %s: %w", sub, dir, err)
		}
		if err := id.GiveAt(fd, sub); err != nil {
			return dir, fmt.Errorf("%s: %w", dir, err)
		}
	}
	if sites {
		if err := emptyFileAt(fd, "run", "sites", id); err != nil {
			return dir, fmt.Errorf("%s: %w", dir, err)
		}
	}
	// Last: from here on the launcher's user may change any name below dir.
	if err := id.GiveAt(fd, ""); err != nil {
		return dir, fmt.Errorf("%s: %w", dir, err)
	}
	return dir, nil
}

// emptyFileAt makes the file name, empty, in the folder sub of the folder open as fd, neither
// through a symlink nor over a file that is there, and hands it to id.
func emptyFileAt(fd int, sub, name string, id identity.Identity) error {
	in, err := unix.Openat(fd, sub, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("opening %s (never through a symlink): %w", sub, err)
	}
	defer unix.Close(in)
	f, err := unix.Openat(in, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return fmt.Errorf("making %s in %s (a new file, never through a symlink): %w", name, sub, err)
	}
	return errors.Join(id.GiveAt(f, ""), unix.Close(f))
}
