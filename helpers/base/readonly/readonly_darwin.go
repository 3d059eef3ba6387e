package readonly

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// bindReadOnly, on macOS, sets the user immutable flag (chflags uchg, UF_IMMUTABLE) on dir and on
// every file in it. File modes do not stop root; the immutable flag does: XNU refuses to write,
// create or remove under an immutable vnode for every credential, root included, while the flag
// is set (bsd/vfs/vfs_subr.c vnode_authorize, "immutable" checks; chflags(2)). Root can clear it,
// which undo does. Compiled, not run on macOS by this project (no Mac here).
func bindReadOnly(dir string) (func() error, error) {
	paths := []string{dir}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.Type().IsRegular() {
			paths = append(paths, filepath.Join(dir, e.Name()))
		}
	}
	// Each path's flags before, restored by undo (a file may carry flags of its own).
	var done []string
	was := map[string]int{}
	undo := func() error {
		var errs []error
		for _, p := range done {
			if err := unix.Chflags(p, was[p]); err != nil {
				errs = append(errs, fmt.Errorf("chflags nouchg %s: %w", p, err))
			}
		}
		return errors.Join(errs...)
	}
	for _, p := range paths {
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			_ = undo()
			return nil, err
		}
		was[p] = int(st.Flags)
		if err := unix.Chflags(p, was[p]|unix.UF_IMMUTABLE); err != nil {
			_ = undo()
			return nil, fmt.Errorf("chflags uchg %s: %w", p, err)
		}
		done = append(done, p)
	}
	return undo, nil
}
