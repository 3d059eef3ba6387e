package identity

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// mayExec says, on a thread acting as id (actas), whether it may execute path, whose stat fi that
// thread made. AT_EACCESS judges by the thread's fs ids; faccessat2 only, since x/sys's fallback
// would judge by the euid, root's on that thread. Without it (a kernel before 5.8, a seccomp
// profile that refuses it) the mode bits decide; the stat already checked the folders on the way.
func (id Identity) mayExec(path string, fi os.FileInfo) error {
	err := unix.Faccessat2(unix.AT_FDCWD, path, unix.X_OK, unix.AT_EACCESS)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
		if id.may(fi, 0o1) {
			return nil
		}
		return os.ErrPermission
	}
	return err
}
