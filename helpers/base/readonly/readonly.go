// Package readonly makes a directory read-only for one user (the launcher's), so a spec can check
// that a failed config write loses nothing. What counts is that user's identity, not the kit's:
// a root kit's launcher runs as another user, for whom a mode stops writes, and the mode is
// changed and checked as that user (helpers/base/actas), so a folder the launcher swapped for a
// symlink gives root nothing to act on. Only a root launcher, which ignores modes, needs more: on
// Linux the directory becomes a read-only bind mount of itself, on macOS it and its files get the
// immutable flag.
//
// It must not import the Ginkgo DSL, Gomega or fixtures/.
package readonly

import (
	"errors"
	"fmt"
	"os"

	"github.com/classproof/classproof/helpers/base/actas"
)

// Make makes dir read-only for uid:gid and returns how to undo it. An error says why it could not
// be done (the spec then skips, with that reason).
func Make(dir string, uid, gid int) (undo func() error, err error) {
	if uid == 0 {
		return bindReadOnly(dir)
	}
	var was os.FileMode
	err = actas.Do(uid, gid, func() error {
		fi, err := os.Stat(dir)
		if err != nil {
			return err
		}
		was = fi.Mode().Perm()
		return os.Chmod(dir, 0o500)
	})
	if errors.Is(err, os.ErrPermission) {
		// Not the user's folder: it cannot change the mode, and may already be unable to write.
		if werr := Check(dir, uid, gid); werr != nil {
			return nil, fmt.Errorf("uid %d cannot change the mode of %s (%v), and may write it", uid, dir, err)
		}
		return func() error { return nil }, nil
	}
	if err != nil {
		return nil, err
	}
	return func() error { return actas.Do(uid, gid, func() error { return os.Chmod(dir, was) }) }, nil
}

// Check tries, as uid:gid, to create a file in dir; it must fail for dir to count as read-only.
func Check(dir string, uid, gid int) error {
	var made bool
	err := actas.Do(uid, gid, func() error {
		f, err := os.CreateTemp(dir, ".probe-*")
		if err != nil {
			return nil
		}
		made = true
		f.Close()
		return os.Remove(f.Name())
	})
	if made {
		return fmt.Errorf("%s is still writable by uid %d", dir, uid)
	}
	return err
}
