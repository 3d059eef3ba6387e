package identity

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Reaches says whether the launcher's user can reach path and read it: every folder on the way
// open to pass through, for it as owner, group or other (by the mode bits; ACLs are not read).
func (id Identity) Reaches(path string) error { return id.passes(path, false) }

// Passes says whether the launcher's user can pass through the folder dir and each on the way
// (it need not list it: a folder the kit hands it next, a cache folder of 0711).
func (id Identity) Passes(dir string) error { return id.passes(dir, true) }

// passes is Reaches, or with through, whether the user can pass through path itself (a folder it
// never lists).
func (id Identity) passes(path string, through bool) error {
	if !id.Other() {
		return nil
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	for p, last := real, !through; ; p, last = filepath.Dir(p), false {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		need := os.FileMode(0o1) // pass through
		if last {
			need = 0o4 // read
			if fi.IsDir() {
				need = 0o5
			}
		}
		if !id.may(fi, need) {
			return &UnreachableError{Uid: id.Uid, Path: p, Mode: fi.Mode().Perm(), Read: last}
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// UnreachableError is a path launcher processes' user cannot reach: the folder on the way it
// cannot pass through, or the file or folder at the end it cannot read (Reaches, Passes, MayRun).
// A caller gives its way out by the type, never by the text.
type UnreachableError struct {
	Uid  int
	Path string
	Mode os.FileMode
	Read bool // the end of the path, unreadable; else a folder on the way
}

func (e *UnreachableError) Error() string {
	what := "pass through"
	if e.Read {
		what = "read"
	}
	return fmt.Sprintf("uid %d, which launcher processes run as, cannot %s %s (mode %v)", e.Uid, what, e.Path, e.Mode)
}

// MayWrite says whether the mode bits of fi let launcher processes' user make and remove names
// in the folder fi describes (write and pass through; ACLs are not read).
func (id Identity) MayWrite(fi os.FileInfo) bool { return id.may(fi, 0o3) }

// may says whether the mode bits of fi grant id every right in need (r=4, w=2, x=1).
func (id Identity) may(fi os.FileInfo, need os.FileMode) bool {
	perm := fi.Mode().Perm()
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		switch {
		case Owner(fi) == id.Uid:
			perm >>= 6
		case int(st.Gid) == id.Gid:
			perm >>= 3
		}
	}
	return perm&need == need
}
