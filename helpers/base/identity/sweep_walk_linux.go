package identity

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/classproof/classproof/helpers/base/contract"
)

// walkBudget bounds the entries one walk of sharedRoots looks at: past it the sweep cannot say
// the uid left nothing, and the run fails saying so.
const walkBudget = 1 << 20

// owned is a file or folder of a uid that a walk found.
type owned struct {
	path     string
	mode     uint32 // st_mode
	nlink    uint64
	dev, ino uint64
	top      bool // no folder of the uid's above it: what the sweep removes
}

func (o owned) String() string {
	if o.mode == 0 { // a walk's error
		return o.path
	}
	return fmt.Sprintf("%q (%s, mode %04o)", o.path, kindOf(o.mode), o.mode&0o7777)
}

// door says whether o is a file that makes whoever runs it its owner or group.
func (o owned) door() bool {
	return o.mode&unix.S_IFMT == unix.S_IFREG && o.mode&(unix.S_ISUID|unix.S_ISGID) != 0
}

func kindOf(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return "folder"
	case unix.S_IFLNK:
		return "symlink"
	case unix.S_IFREG:
		switch {
		case mode&unix.S_ISUID != 0 && mode&unix.S_ISGID != 0:
			return "setuid+setgid file"
		case mode&unix.S_ISUID != 0:
			return "setuid file"
		case mode&unix.S_ISGID != 0:
			return "setgid file"
		}
		return "file"
	}
	return "special file"
}

// ownedIn walks the trees at roots as root and lists what uid owns there, never following a
// symlink nor resolving a name the launcher may change: each folder is opened by its one name in
// its parent's descriptor (O_NOFOLLOW) and each entry is read there (AT_SYMLINK_NOFOLLOW). It
// goes into a folder only where uid owns it or may pass through it by its mode bits (ACLs are not
// read): below any other, uid can have made nothing. A root reached twice (TMPDIR is /tmp) is
// walked once. unwalked are the entries it could not look at for a reason other than their being
// gone (EACCES, EMFILE, ENOTCONN from a FUSE mount the uid made): each may hide anything; err is
// a walk that stopped (its bounds).
func ownedIn(uid int, roots []string) (found []owned, unwalked []error, err error) {
	w := walker{uid: uid, seen: map[[2]uint64]bool{}}
	for _, r := range roots {
		fd, err := unix.Open(r, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if gone(err) {
			continue // no such folder here
		} else if err != nil {
			w.unwalked = append(w.unwalked, fmt.Errorf("%s: %w", r, err))
			continue
		}
		err = w.walk(fd, r, false, 0)
		unix.Close(fd)
		if err != nil {
			return w.found, w.unwalked, err
		}
	}
	return w.found, w.unwalked, nil
}

// gone says whether err says a name is no longer a folder there: removed, or swapped for a
// symlink (ELOOP under O_NOFOLLOW) or a file.
func gone(err error) bool {
	return errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR)
}

type walker struct {
	uid      int
	seen     map[[2]uint64]bool // folders walked (dev, ino)
	entries  int
	found    []owned
	unwalked []error
}

// walk lists the folder open as fd (at path, for names), then walks each folder below it it may.
// under says a folder of uid's is above it.
func (w *walker) walk(fd int, path string, under bool, depth int) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	key := [2]uint64{st.Dev, st.Ino}
	if w.seen[key] {
		return nil
	}
	w.seen[key] = true
	if depth > 64 {
		return fmt.Errorf("the sweep of uid %d stopped at %s, 64 folders deep: it cannot say the uid left nothing below", w.uid, path)
	}
	names, err := readNames(fd, walkBudget-w.entries)
	if err != nil {
		return fmt.Errorf("listing %s: %w", path, err)
	}
	w.entries += len(names)
	if w.entries >= walkBudget {
		return fmt.Errorf("the sweep of uid %d looked at %d entries in %s and stopped at %s: it cannot say the uid left nothing; clear those folders, or set %s to one uid for every run", w.uid, walkBudget, strings.Join(sharedRoots(), ", "), path, contract.LauncherUIDEnv)
	}
	for _, name := range names {
		var est unix.Stat_t
		p := filepath.Join(path, name)
		if err := unix.Fstatat(fd, name, &est, unix.AT_SYMLINK_NOFOLLOW); errors.Is(err, unix.ENOENT) {
			continue // gone since the listing
		} else if errors.Is(err, unix.EACCES) && refusedByOthersFuse(p, w.uid) {
			continue // refused to uid as well: nothing of its there
		} else if err != nil {
			w.unwalked = append(w.unwalked, fmt.Errorf("%q: %w", p, err))
			continue
		}
		mine := int(est.Uid) == w.uid
		if mine {
			w.found = append(w.found, owned{path: p, mode: est.Mode, nlink: uint64(est.Nlink), dev: est.Dev, ino: est.Ino, top: !under})
		}
		if est.Mode&unix.S_IFMT != unix.S_IFDIR || !(mine || passable(est, w.uid)) {
			continue
		}
		sub, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if gone(err) {
			continue // swapped or gone since
		} else if err != nil {
			w.unwalked = append(w.unwalked, fmt.Errorf("%q: %w", p, err))
			continue
		}
		err = w.walk(sub, p, under || mine, depth+1)
		unix.Close(sub)
		if err != nil {
			return err
		}
	}
	return nil
}

// passable says whether the mode bits of a folder let uid (with gid uid, no other group) pass.
func passable(st unix.Stat_t, uid int) bool {
	switch {
	case int(st.Uid) == uid:
		return st.Mode&0o100 != 0
	case int(st.Gid) == uid:
		return st.Mode&0o010 != 0
	}
	return st.Mode&0o001 != 0
}

// readNames lists the folder open as fd (from its start; fd is not closed), at most max names.
func readNames(fd int, max int) ([]string, error) {
	dup, err := unix.Dup(fd)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(dup), "")
	defer f.Close()
	var names []string
	for len(names) <= max {
		batch, err := f.Readdirnames(1024)
		names = append(names, batch...)
		if errors.Is(err, io.EOF) || (err == nil && len(batch) == 0) {
			break
		}
		if err != nil {
			return names, err
		}
	}
	return names, nil
}
