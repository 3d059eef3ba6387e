package identity

import (
	"bufio"
	"io"
	"os"
	"strconv"
	"strings"
)

// othersFuse says whether path is the mount point of a FUSE file system that a user other than
// uid mounted (mountinfo's super options name it: user_id=N). Without allow_other the kernel
// refuses every other user there, root included (fs/fuse/dir.c, fuse_allow_current_process), so
// root's EACCES on it says nothing of what uid left: uid is refused as well. A FUSE mount of uid's
// own is no such case: uid may have written through it, and root cannot look.
func othersFuse(mountinfo io.Reader, path string, uid int) bool {
	s := bufio.NewScanner(mountinfo)
	s.Buffer(make([]byte, 64*1024), 1<<20)
	for s.Scan() {
		// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER-OPTIONS
		pre, post, ok := strings.Cut(s.Text(), " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 5 || len(g) < 3 || unescapeMount(f[4]) != path {
			continue
		}
		if g[0] != "fuse" && !strings.HasPrefix(g[0], "fuse.") {
			return false
		}
		for _, o := range strings.Split(g[2], ",") {
			if v, ok := strings.CutPrefix(o, "user_id="); ok {
				n, err := strconv.Atoi(v)
				return err == nil && n != uid
			}
		}
		return false
	}
	return false
}

// unescapeMount undoes mountinfo's octal escapes (\040 a space, \011 a tab, \012 a newline,
// \134 a backslash).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// refusedByOthersFuse says whether p, which root could not look at, is another user's FUSE mount
// (othersFuse, on this process's mountinfo).
func refusedByOthersFuse(p string, uid int) bool {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return false
	}
	defer f.Close()
	return othersFuse(f, p, uid)
}
