package actas

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// removeAll removes p as the user, first giving each of the user's own folders at and below it
// u+rwx (chmod -R a-w and Go's module cache leave them read-only, which the user may undo and
// the removal needs): only what the user cannot remove even so is left. Nothing is followed: each
// folder is read through a descriptor opened by its one name in its parent's (O_NOFOLLOW), and
// fchmodat acts on a name in that descriptor (a name swapped for a symlink since is the user's
// own doing, and a chmod through it has only the user's power).
func removeAll(p string) error {
	if parent, err := unix.Open(filepath.Dir(p), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err == nil {
		ownWritable(parent, filepath.Base(p), 0)
		unix.Close(parent)
	}
	return os.RemoveAll(p)
}

// ownWritable gives name in the folder open as parent, and each folder below it, u+rwx where the
// user owns it; it goes at most 256 folders deep (os.RemoveAll then says what stays).
func ownWritable(parent int, name string, depth int) {
	var st unix.Stat_t
	if depth > 256 || unix.Fstatat(parent, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR || int(st.Uid) != os.Getuid() {
		return
	}
	if st.Mode&0o700 != 0o700 {
		_ = unix.Fchmodat(parent, name, st.Mode&0o7777|0o700, 0)
	}
	fd, err := unix.Openat(parent, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	dup, err := unix.Dup(fd)
	if err != nil {
		return
	}
	f := os.NewFile(uintptr(dup), name)
	names, _ := f.Readdirnames(-1)
	f.Close()
	for _, n := range names {
		ownWritable(fd, n, depth+1)
	}
}
