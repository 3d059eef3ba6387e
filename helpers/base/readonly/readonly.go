// Package readonly makes a directory read-only for the launcher under test, so a spec can check
// that a failed config write loses nothing. chmod is not enough for root, which ignores file
// modes: as root on Linux the directory becomes a read-only bind mount of itself, on macOS it and
// its files get the immutable flag.
//
// It must not import the Ginkgo DSL, Gomega or fixtures/.
package readonly

import (
	"fmt"
	"os"
)

// Make makes dir read-only and returns how to undo it. An error says why it could not be done
// (the spec then skips, with that reason).
func Make(dir string) (undo func() error, err error) {
	if os.Geteuid() != 0 {
		fi, err := os.Stat(dir)
		if err != nil {
			return nil, err
		}
		if err := os.Chmod(dir, 0o500); err != nil {
			return nil, err
		}
		return func() error { return os.Chmod(dir, fi.Mode().Perm()) }, nil
	}
	return bindReadOnly(dir)
}

// Check tries to create a file in dir; it must fail for dir to count as read-only.
func Check(dir string) error {
	f, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		return nil
	}
	f.Close()
	os.Remove(f.Name())
	return fmt.Errorf("%s is still writable", dir)
}
