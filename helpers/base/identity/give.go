package identity

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/classproof/classproof/helpers/base/files"
)

// Give hands folders and files the kit made for launcher processes (their private folder, a
// profile, a spawn spec, the ledger) to the launcher's user, never through a symlink.
func (id Identity) Give(paths ...string) error {
	if !id.Other() {
		return nil
	}
	for _, p := range paths {
		if err := os.Lchown(p, id.Uid, id.Gid); err != nil {
			return fmt.Errorf("handing %s to the launcher's user (uid %d): %w", p, id.Uid, err)
		}
	}
	return nil
}

// GiveAt hands what the kit made for launcher processes to their user through a descriptor: the
// entry name of the folder open as dirfd, never through a symlink, or with name "", what dirfd
// itself is. A folder the kit fills before it hands it over is filled and handed this way: once
// the user owns it, a name in it may be that user's symlink (launcher.privateDir).
func (id Identity) GiveAt(dirfd int, name string) error {
	if !id.Other() {
		return nil
	}
	var err error
	if name == "" {
		name, err = "the folder", unix.Fchown(dirfd, id.Uid, id.Gid)
	} else {
		err = unix.Fchownat(dirfd, name, id.Uid, id.Gid, unix.AT_SYMLINK_NOFOLLOW)
	}
	if err != nil {
		return fmt.Errorf("handing %s to the launcher's user (uid %d): %w", name, id.Uid, err)
	}
	return nil
}

// Reclaim takes dir and everything below it back from the launcher's user, writable by the kit
// alone: what a build step made there (the binaries every later launcher process runs) is then
// out of reach of those processes.
func (id Identity) Reclaim(dir string) error {
	if !id.Other() {
		return nil
	}
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := os.Lchown(p, id.kit, os.Getegid()); err != nil {
			return fmt.Errorf("taking %s back from the launcher's user: %w", p, err)
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		return os.Chmod(p, fi.Mode().Perm()&^0o022)
	})
}

// CacheBase is where the kit keeps what launcher processes run or write between runs (the
// harness, the launcher's binaries, {cache}): the user's cache folder, when launcher processes can
// pass through to it; else (they run as another user, and root's home is 0700) root's folder in
// the temp folder, whose trust files.TrustedPath checks as for any user without a home.
func (id Identity) CacheBase() string {
	base := files.CacheBase()
	if id.Other() && id.Passes(existing(base)) != nil {
		return files.TempCacheBase()
	}
	return base
}

// existing is the longest part of path that exists.
func existing(path string) string {
	for {
		if _, err := os.Lstat(path); err == nil || path == filepath.Dir(path) {
			return path
		}
		path = filepath.Dir(path)
	}
}

// DirMode is the mode of a folder of the kit's that launcher processes must pass through (the
// cache holding the harness and the launcher's binaries): the kit's alone, and, when they run as
// another user, open to pass through (never to list or write).
func (id Identity) DirMode() os.FileMode {
	if id.Other() {
		return 0o711
	}
	return 0o700
}

// TempDir makes a temporary folder of the kit's (os.MkdirTemp) that launcher processes pass
// through: the harness, the launcher's binaries or a red/green worktree sit below it.
func (id Identity) TempDir(pattern string) (string, error) {
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		return "", err
	}
	if err := os.Chmod(dir, id.DirMode()); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}
