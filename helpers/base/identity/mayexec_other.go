//go:build !linux

package identity

import (
	"os"

	"golang.org/x/sys/unix"
)

// mayExec: elsewhere a kit never runs its launcher as another user (Launcher keeps the
// kit's own), so the process's own access check is the launcher's.
func (id Identity) mayExec(path string, _ os.FileInfo) error {
	return unix.Faccessat(unix.AT_FDCWD, path, unix.X_OK, unix.AT_EACCESS)
}
