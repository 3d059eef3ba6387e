package proc

import (
	"fmt"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// ChannelPath is the ledger channel of uid's run, as a process in this user namespace names it:
// the namespace is in the name. A launcher that starts the harness in a user namespace of its own
// (unshare -U) gives it another one, so the harness finds no channel there, and the folder,
// root's outside, is not root's as it sees it: RecordInChannel's error. One that chroots it into a
// tree of its own (a fake folder, a FIFO it reads) leaves it no /proc, where its namespace is read
// (Landlock refuses a sandboxed launcher the mount of one): an error too.
func ChannelPath(uid int) (string, error) {
	ns, err := userNamespace()
	if err != nil {
		return "", err
	}
	return filepath.Join(ChannelDir, fmt.Sprintf("%d.%d", ns, uid)), nil
}

// userNamespace is the inode of this process's user namespace, read from nsfs: a file a launcher
// made to look like /proc/self/ns/user is on no nsfs, and refused.
func userNamespace() (uint64, error) {
	const path = "/proc/self/ns/user"
	var fs unix.Statfs_t
	if err := unix.Statfs(path, &fs); err != nil {
		return 0, fmt.Errorf("reading this process's user namespace (%s): %w", path, err)
	}
	if fs.Type != unix.NSFS_MAGIC {
		return 0, fmt.Errorf("%s is on no nsfs (filesystem %#x): this process runs where /proc is not the kernel's", path, fs.Type)
	}
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return 0, fmt.Errorf("reading this process's user namespace (%s): %w", path, err)
	}
	return st.Ino, nil
}
