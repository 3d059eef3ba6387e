package identity

import (
	"os"
	"path/filepath"
	"testing"
)

// A symlink on the way to a folder the kit makes is judged by where it stands and where it
// points, never by its own mode (0777 on Linux): a temp folder reached through a root-owned
// symlink (macOS's /var, a TMPDIR made one) is no folder the launcher's user can change, and one
// that points into that user's own folder is.
func TestMaySwapJudgesASymlinkByWhereItPoints(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skipf("needs a root kit and another user; runs as uid %d", os.Geteuid())
	}
	id := Identity{Uid: DefaultLauncherUID, Gid: DefaultLauncherUID, kit: 0}
	top, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real, theirs := filepath.Join(top, "real"), filepath.Join(top, "theirs")
	for _, d := range []string{real, theirs} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chown(theirs, id.Uid, id.Gid); err != nil {
		t.Fatal(err)
	}
	toReal, toTheirs := filepath.Join(top, "to-real"), filepath.Join(top, "to-theirs")
	for link, to := range map[string]string{toReal: real, toTheirs: theirs} {
		if err := os.Symlink(to, link); err != nil {
			t.Fatal(err)
		}
	}
	if got := id.MaySwap(filepath.Join(toReal, "cache", "x")); got != "" {
		t.Errorf("through a symlink to root's 0755 folder: MaySwap says uid %d may change names in %s; want none", id.Uid, got)
	}
	if got := id.MaySwap(filepath.Join(toTheirs, "cache", "x")); got == "" {
		t.Errorf("through a symlink to uid %d's own folder: MaySwap names none; want the folder that link names", id.Uid)
	}
}
