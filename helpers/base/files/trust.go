package files

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// TrustedPath checks every folder on the way to path (path itself too, when it exists): each must
// be owned by this user or root, and writable by no one else, unless it is a sticky folder owned
// by root or this user (/tmp: others may add entries there, but not replace ours). A symlink on
// the way must be owned by this user or root, and the folders it leads to pass the same test. It
// is the rule for anything the kit executes or writes: a folder another user can write is one
// where they can put a binary the kit runs or redirect what it writes (as root the kit ran
// another user's binary from a cache folder they had made first).
func TrustedPath(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	if err := trustedChain(abs, true); err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(existing(abs))
	if err != nil {
		return err
	}
	return trustedChain(real, false)
}

// existing is the longest part of abs that exists.
func existing(abs string) string {
	for p := abs; ; p = filepath.Dir(p) {
		if _, err := os.Lstat(p); err == nil || p == filepath.Dir(p) {
			return p
		}
	}
}

func trustedChain(abs string, lexical bool) error {
	me := os.Geteuid()
	for p := abs; ; p = filepath.Dir(p) {
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, os.ErrNotExist):
			// made later, by the kit, under a folder checked here
		case err != nil:
			return err
		default:
			st, ok := fi.Sys().(*syscall.Stat_t)
			if !ok {
				return fmt.Errorf("%s: cannot read its owner", p)
			}
			owner := int(st.Uid)
			mine := owner == me || owner == 0
			symlink := fi.Mode()&os.ModeSymlink != 0
			switch {
			case !mine:
				return fmt.Errorf("%s is owned by uid %d, neither this user (uid %d) nor root", p, owner, me)
			case symlink && !lexical:
				return fmt.Errorf("%s: a symlink after resolving symlinks", p)
			case !symlink && fi.Mode().Perm()&0o022 != 0 && fi.Mode()&os.ModeSticky == 0:
				return fmt.Errorf("%s is writable by others (mode %v)", p, fi.Mode().Perm())
			}
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}
