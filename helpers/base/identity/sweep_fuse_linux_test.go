package identity

import (
	"strings"
	"testing"
)

// Another user's FUSE mount in a shared folder (an AppImage's /tmp/.mount_*, an sshfs) refuses
// root's fstatat with EACCES; the run's uid is refused as well, so it is nothing the sweep must
// look in (a second hostile review: every run on such a desktop failed and kept its uid). A FUSE
// mount of the run's uid, or any other file system, stays a place the sweep could not look.
// Lines as /proc/self/mountinfo has them (Linux 6.x, fusermount3), one with an escaped space.
func TestOnlyAnotherUsersFuseMountIsNoPlaceOfTheUid(t *testing.T) {
	const mountinfo = `22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw
25 22 0:21 / /dev/shm rw,nosuid,nodev shared:3 - tmpfs tmpfs rw,inode64
312 22 0:55 / /tmp/.mount_AppXyz ro,nosuid,nodev,relatime shared:170 - fuse.App.AppImage App.AppImage ro,user_id=1000,group_id=1000
313 22 0:56 / /tmp/my\040files rw,nosuid,nodev,relatime shared:171 - fuse.sshfs me@host: rw,user_id=1000,group_id=1000
314 22 0:57 / /tmp/runs rw,nosuid,nodev,relatime shared:172 - fuse.sshfs x@host: rw,user_id=61234,group_id=61234
315 22 0:58 / /tmp/plain rw,relatime shared:173 - fuse.bindfs bindfs rw
`
	for _, c := range []struct {
		path string
		want bool
	}{
		{"/tmp/.mount_AppXyz", true},
		{"/tmp/my files", true},
		{"/tmp/runs", false},  // the run uid's own: it may have written there
		{"/tmp/plain", false}, // no user_id: whose it is, the kit cannot say
		{"/dev/shm", false},   // not FUSE
		{"/tmp/gone", false},  // no mount there
	} {
		if got := othersFuse(strings.NewReader(mountinfo), c.path, 61234); got != c.want {
			t.Errorf("%s: another user's FUSE mount, refused to uid 61234 as to root: %v, want %v", c.path, got, c.want)
		}
	}
}
