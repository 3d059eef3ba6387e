package identity

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/classproof/classproof/helpers/base/actas"
	"github.com/classproof/classproof/helpers/base/contract"
)

// sharedRoots are the folders every user may write on a Linux machine (1777), whose trees the
// sweep of a run's uid walks: what a launcher with no write sandbox (CLASSPROOF_SANDBOX=off, a
// kernel without Landlock) may leave where the next holder of its uid, or anyone, finds it.
var sharedRoots = func() []string {
	return []string{os.TempDir(), "/tmp", "/var/tmp", "/dev/shm", "/dev/mqueue", "/run/lock"}
}

// walkBudget bounds the entries one walk of sharedRoots looks at: past it the sweep cannot say
// the uid left nothing, and the run fails saying so.
const walkBudget = 1 << 20

// swept is what sweepLeft found of a run's uid.
type swept struct {
	left   []string // what it found and removed, named (LEFT BEHIND)
	failed []string // each a reason the run fails: a setuid or setgid file of the uid, what stays
	keep   bool     // something of the uid may still be there: it stays out of the pool
}

// sweepLeft removes, as id's user in a process of its own, what it owns in the shared folders'
// trees and its System V IPC objects (memory, for as long as the machine runs), and names them:
// each of the first few, then how many more. A run uid is free again only when nothing it owns
// is left: what could not be removed fails the run and keeps the uid out of the pool (keep), and
// a setuid or setgid file of the uid fails it whether or not it was removed (issue 68: a
// setuid+setgid copy of a binary in a 0555 folder of /dev/shm was named and passed, and whoever
// ran it later became that uid). A correct launcher makes no such file.
func sweepLeft(id Identity) (swept, error) {
	found, unwalked, err := ownedIn(id.Uid, sharedRoots())
	if err != nil {
		return swept{}, err
	}
	var s swept
	// A folder the walk could not look in may hold anything of the uid's: the run fails saying
	// which, and the uid stays out.
	for _, u := range unwalked {
		s.failed = append(s.failed, fmt.Sprintf("the sweep of the run's uid %d could not look in %v: it cannot say the uid left nothing there", id.Uid, u))
	}
	s.keep = len(unwalked) > 0
	var tops []string
	for _, o := range found {
		if o.top {
			tops = append(tops, o.path)
		}
	}
	if len(tops) > 0 {
		if _, err := actas.Child(id.Uid, id.Gid, sweepBound(), actas.RemoveAll, tops...); err != nil {
			return s, err
		}
		// What is there now is what the uid could not remove as itself: the truth, whatever the
		// child said.
		still, unwalked, err := ownedIn(id.Uid, sharedRoots())
		if err != nil {
			still = append(still, owned{path: err.Error()})
		}
		for _, u := range unwalked {
			still = append(still, owned{path: fmt.Sprintf("%v (could not look in it)", u)})
		}
		there := map[string]bool{}
		for _, o := range still {
			there[o.path] = true
		}
		// Each door first (said once, removed or not), then the rest still there.
		var elsewhere bool
		s.failed, elsewhere = doors(found, id.Uid, there)
		for _, o := range still {
			if !o.door() {
				s.failed = append(s.failed, fmt.Sprintf("not removed, of the run's uid %d: %s", id.Uid, o))
			}
		}
		s.left = named(slices.DeleteFunc(tops, func(p string) bool { return there[p] }), nil, id.Uid)
		s.keep = s.keep || elsewhere || len(still) > 0
	}
	if err := sweepIPC(id, &s); err != nil {
		return s, err
	}
	return s, nil
}

// sweepIPC removes the uid's System V IPC objects as the uid, and judges by what is there after.
func sweepIPC(id Identity, s *swept) error {
	ipc := ipcOf(id.Uid)
	if len(ipc) == 0 {
		return nil
	}
	said, err := actas.Child(id.Uid, id.Gid, sweepBound(), actas.RemoveIPC, ipc...)
	if err != nil {
		return err
	}
	// What is there now is what stays, whatever the child (the uid's to stop or trace) said.
	still := ipcOf(id.Uid)
	s.left = append(s.left, named(slices.DeleteFunc(ipc, func(o string) bool { return slices.Contains(still, o) }), nil, id.Uid)...)
	for _, o := range still {
		why := o + ": still there after its removal"
		if i := slices.IndexFunc(said, func(l string) bool { return strings.HasPrefix(l, o+":") }); i >= 0 {
			why = said[i]
		}
		s.failed = append(s.failed, fmt.Sprintf("not removed, of the run's uid %d: %s", id.Uid, why))
	}
	s.keep = s.keep || len(still) > 0
	return nil
}

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

// doors names each setuid or setgid file in found, with its mode, whether it is still there, and,
// where it has links the walk did not find (a hard link in a folder outside the shared ones), how
// many: then elsewhere says a door may be left where no sweep looks.
func doors(found []owned, uid int, there map[string]bool) (out []string, elsewhere bool) {
	links := map[[2]uint64]uint64{}
	for _, o := range found {
		links[[2]uint64{o.dev, o.ino}]++
	}
	for _, o := range found {
		if !o.door() {
			continue
		}
		line := fmt.Sprintf("a %s of the run's uid %d, which makes whoever runs it that uid: %s, removed", kindOf(o.mode), uid, o)
		if there[o.path] {
			line = strings.TrimSuffix(line, "removed") + "not removed"
		}
		if n := links[[2]uint64{o.dev, o.ino}]; o.nlink > n {
			line += fmt.Sprintf("; it has %d links, %d of them outside the folders swept (%s)", o.nlink, o.nlink-n, strings.Join(sharedRoots(), ", "))
			elsewhere = true
		}
		out = append(out, line)
	}
	return out, elsewhere
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

// named says what a sweep found of uid's, the first ten by name (quoted: a file name is the
// launcher's to choose) and how many more, and what it could not remove.
func named(found, failed []string, uid int) []string {
	const most = 10
	var out []string
	for i, f := range found {
		if i == most {
			out = append(out, fmt.Sprintf("and %d more of uid %d's (removed)", len(found)-most, uid))
			break
		}
		out = append(out, fmt.Sprintf("%q (uid %d's; removed)", f, uid))
	}
	for _, f := range failed {
		out = append(out, fmt.Sprintf("not removed, of uid %d's: %s", uid, f))
	}
	return out
}
