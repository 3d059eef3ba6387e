// Package files writes, locks and checks files and folders the kit trusts: a write is whole or not
// at all (temp file and rename), a lock never goes through a symlink, and a folder is trusted only
// when no one else can write it or any folder on the way to it.
//
// It is a bottom layer: it imports nothing of the kit.
package files

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Private checks that path is ours alone: not a symlink, owned by this user, and not writable by
// group or others; dir says whether it must be a folder (else a regular file). A shared folder or
// a planted file is where reports could be redirected or a ledger could name a stranger.
func Private(path string, dir bool) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		return fmt.Errorf("%s is a symlink", path)
	case dir && !fi.IsDir(), !dir && !fi.Mode().IsRegular():
		return fmt.Errorf("%s is not a %s", path, map[bool]string{true: "folder", false: "regular file"}[dir])
	case ok && int(st.Uid) != os.Geteuid():
		return fmt.Errorf("%s is owned by uid %d, not by this user (uid %d)", path, st.Uid, os.Geteuid())
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("%s is writable by others (mode %v)", path, fi.Mode().Perm())
	}
	return nil
}

// WriteFile writes data to path through a temp file in the same folder and a rename, so a reader
// never sees half a file and a planted symlink at path is replaced, not written through.
func WriteFile(path string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// TryLock takes the lock on path (see Lock) only if no one holds it: ok is false when someone does.
func TryLock(path string) (unlock func(), ok bool, err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, false, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("locking %s: %w", path, err)
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, true, nil
}

// Lock takes an exclusive lock on path (made if missing, never through a symlink), waiting for
// another holder to let go, and returns how to let go of it.
func Lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}
