package identity

import (
	"os"
	"path/filepath"
	"syscall"

	"github.com/classproof/classproof/helpers/base/files"
)

// MaySwap is the first folder on the way to w (top down) in which launcher processes' user could
// make or replace the next name (plant a symlink where the kit is about to make a folder, say),
// when that user is not the kit's; "" when there is none. It could in a folder it owns (it may
// change its mode) or may write by the mode bits, unless the sticky bit keeps it from replacing a
// name it does not own (/tmp: the kit's own folders there are safe). A symlink on the way (a
// TMPDIR reached through one, macOS's /var and /tmp) is judged in the folder that holds it, and
// the folders on the way to where it points are judged too.
func (id Identity) MaySwap(w string) string {
	if !id.Other() {
		return ""
	}
	if dir := id.maySwap(w); dir != "" {
		return dir
	}
	if real := files.Resolved(w); real != filepath.Clean(w) {
		return id.maySwap(real)
	}
	return ""
}

// maySwap is MaySwap along w's names as written.
func (id Identity) maySwap(w string) string {
	next := w
	var chain [][2]string // (folder, the name on the way below it), bottom up
	for p := filepath.Dir(w); ; next, p = p, filepath.Dir(p) {
		chain = append(chain, [2]string{p, next})
		if p == filepath.Dir(p) {
			break
		}
	}
	for i := len(chain) - 1; i >= 0; i-- {
		dir, child := chain[i][0], chain[i][1]
		// A symlink's own mode says nothing (Linux shows 0777 for every one): the folder it
		// names is the one whose names may change.
		fi, err := os.Stat(dir)
		if err != nil || !(Owner(fi) == id.Uid || id.MayWrite(fi)) {
			continue // not there yet (MkdirAll makes it), or not the user's to change
		}
		cfi, err := os.Lstat(child)
		if err != nil || fi.Mode()&os.ModeSticky == 0 || Owner(cfi) == id.Uid {
			return dir
		}
	}
	return ""
}

// Owner is the uid that owns what fi describes; -1 where the platform does not say.
func Owner(fi os.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}
