package proc

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// SealLedger makes the ledger at path append-only (FS_APPEND_FL, as chattr +a) once it is made
// and handed to the launcher's user: the kernel then refuses that user, its owner, every open for
// writing without O_APPEND, truncation, chmod and chown, and the ledger's unlink and rename
// (fs/open.c, fs/namei.c may_delete: IS_APPEND). Lines are added, never taken back: a launcher
// cannot erase the record of a harness it started and killed. Setting or clearing the flag
// needs CAP_LINUX_IMMUTABLE in the initial user namespace, which the launcher's user lacks; a
// kit without it (not root; Docker's default capabilities) or a filesystem without the flag
// (ext4, xfs, btrfs and tmpfs since Linux 6.0 have it; overlayfs passes it to its upper layer;
// NFS, FUSE and others answer ENOTTY or EOPNOTSUPP) gets an error saying so, and the run goes
// on with a ledger the launcher can rewrite (run.json says which).
func SealLedger(path string) error {
	return setAppend(path, true)
}

// UnsealLedger clears the flag SealLedger set, for the kit to take the ledger back (chown),
// remove or move it; a ledger without the flag, or none, is left as it is.
func UnsealLedger(path string) error {
	err := setAppend(path, false)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// fsAppendFL is FS_APPEND_FL (include/uapi/linux/fs.h), which x/sys/unix does not name.
const fsAppendFL = 0x00000020

func setAppend(path string, on bool) error {
	// O_NOFOLLOW and a regular file: the flag is set on the kit's ledger, never through a link.
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return &os.PathError{Op: "fstat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return fmt.Errorf("%s is not a regular file", path)
	}
	flags, err := unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
	if err != nil {
		if !on {
			return nil // no flags on this filesystem: none was set
		}
		return fmt.Errorf("reading the file flags of %s (FS_IOC_GETFLAGS): %w", path, err)
	}
	want := flags &^ fsAppendFL
	if on {
		want |= fsAppendFL
	}
	if want == flags {
		return nil
	}
	// The flag word is 32 bits wide whatever the ioctl number says (fs/ioctl.c reads an int).
	if err := unix.IoctlSetPointerInt(fd, unix.FS_IOC_SETFLAGS, int(int32(want))); err != nil {
		what := map[bool]string{true: "setting", false: "clearing"}[on]
		return fmt.Errorf("%s append-only on %s (FS_IOC_SETFLAGS, needs CAP_LINUX_IMMUTABLE): %w", what, path, err)
	}
	return nil
}
