package launcher

import (
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/classproof/classproof/helpers/base/actas"
	"github.com/classproof/classproof/helpers/base/files"
)

// FileTime is the modification time of a file the launcher's processes write (its config file),
// read as their user with no symlink at its end followed: a regular file, or an error naming it.
func (l *Instance) FileTime(path string) (time.Time, error) {
	var t time.Time
	err := l.asLauncher(path, func() error {
		fi, err := regular(path)
		if err == nil {
			t = fi.ModTime()
		}
		return err
	})
	return t, err
}

// SetFileTime sets the access and modification times of such a file to t, as the launcher's
// user: a spec makes two writes of the file look as if they fell in one tick of its timestamps
// (a file system whose times tick once a second, or two writes within one kernel tick), which no
// launcher may take for "unchanged".
func (l *Instance) SetFileTime(path string, t time.Time) error {
	return l.asLauncher(path, func() error {
		if _, err := regular(path); err != nil {
			return err
		}
		ts := unix.NsecToTimespec(t.UnixNano())
		if err := unix.UtimesNanoAt(unix.AT_FDCWD, path, []unix.Timespec{ts, ts}, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return fmt.Errorf("setting the times of %s: %w", path, err)
		}
		return nil
	})
}

// asLauncher runs fn on a file of the launcher's as its user, as WriteFile writes one: below this
// instance's folder, or anywhere only where the launcher runs as the kit's own user. The kernel
// then judges every folder on the way (one the launcher swapped for a symlink leads only where
// it may go itself), and a time set needs that user's ownership of the file.
func (l *Instance) asLauncher(path string, fn func() error) error {
	id := l.d.RunsAs
	if !files.Within(path, l.Dir) && id.Other() {
		return fmt.Errorf("target manifest %s: %s is outside the launcher's folder %s: a root kit reads or changes a file of a launcher that runs as uid %d only below that folder; put it under {dir} or {home}",
			l.d.Manifest.Source, path, l.Dir, id.Uid)
	}
	return actas.Do(id.Uid, id.Gid, fn)
}

// regular is path's own information, refused unless it is a regular file (a symlink is not).
func regular(path string) (os.FileInfo, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%v); refused", path, fi.Mode().Type())
	}
	return fi, nil
}
