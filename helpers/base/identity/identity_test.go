package identity

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A root kit on Linux picks another user for its launcher, the default or the one asked for;
// "0" keeps root; anything else malformed is an error naming the variable, the value and what is
// accepted, and never gives root. A kit that is not root keeps its own identity.
func TestALauncherIdentityIsChosenOnceAndNeverRootByMistake(t *testing.T) {
	if os.Geteuid() != 0 || runtime.GOOS != "linux" {
		id, err := chooseIdentity("1001")
		if err != nil || id.Other() || id.Uid != os.Geteuid() {
			t.Errorf("a kit that is not root (or not on Linux): %+v, %v; want its own identity", id, err)
		}
		return
	}
	for _, c := range []struct {
		choice   string
		uid, gid int
		err      string
	}{
		{"", DefaultLauncherUID, DefaultLauncherUID, ""},
		{"1001", 1001, 1001, ""},
		{"1001:1002", 1001, 1002, ""},
		{"0", 0, 0, ""},
		{"nobody", DefaultLauncherUID, DefaultLauncherUID, `CLASSPROOF_LAUNCHER_UID="nobody": expected UID or UID:GID`},
		{"1001:0", DefaultLauncherUID, DefaultLauncherUID, "expected UID or UID:GID"},
		{"-1", DefaultLauncherUID, DefaultLauncherUID, "expected UID or UID:GID"},
	} {
		id, err := chooseIdentity(c.choice)
		if id.Uid != c.uid || id.Gid != c.gid || (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%q: uid %d gid %d, %v; want uid %d gid %d, error %q", c.choice, id.Uid, id.Gid, err, c.uid, c.gid, c.err)
		}
		if c.choice != "0" && (id.Root() || id.Credential() == nil || len(id.Credential().Groups) != 0) {
			t.Errorf("%q: %v holds root or keeps root's groups (credential %+v)", c.choice, id, id.Credential())
		}
	}
}

// Reaches reads the mode bits on the way as the launcher's user would meet them.
func TestReachesSaysWhichFolderStopsTheLaunchersUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to make folders of another user's")
	}
	id := Identity{Uid: 65534, Gid: 65534}
	// Resolved: Reaches names the folder that stops the user on the resolved path, and TMPDIR
	// may be reached through a symlink (macOS's /var).
	top, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Dir(top), 0o755)
	closed := filepath.Join(top, "closed", "in")
	open := filepath.Join(top, "open", "in")
	for _, d := range []string{closed, open} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(top, 0o711)
	os.Chmod(filepath.Dir(closed), 0o700)
	if err := id.Reaches(open); err != nil {
		t.Errorf("through 0711 and 0755: %v", err)
	}
	if err := id.Reaches(closed); err == nil || !strings.Contains(err.Error(), "cannot pass through "+filepath.Dir(closed)+" (mode -rwx------)") {
		t.Errorf("through a 0700 folder of root's: %v; want it named", err)
	}
	if err := os.Chown(filepath.Dir(closed), 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if err := id.Reaches(closed); err != nil {
		t.Errorf("through a 0700 folder of its own: %v", err)
	}
}

// Root's power is uid 0 or any effective capability, read from /proc/PID/status's CapEff.
func TestAnIdentitySaysWhetherItHoldsRoot(t *testing.T) {
	status := "Name:\tx\nCapInh:\t0000000000000000\nCapPrm:\t000001ffffffffff\nCapEff:\t000001ffffffffff\n"
	for _, c := range []struct {
		id   Identity
		root bool
	}{
		{Identity{Uid: 0, CapEff: capEff(status)}, true},
		{Identity{Uid: 1001, CapEff: "0000000000000000"}, false},
		{Identity{Uid: 1001, CapEff: "0000000000000400"}, true}, // CAP_NET_BIND_SERVICE alone is still a capability
		{Identity{Uid: 501}, false},                             // macOS: no CapEff
	} {
		if c.id.Root() != c.root || strings.Contains(c.id.String(), "(root:") != c.root {
			t.Errorf("%+v: Root %v, %q; want root %v", c.id, c.id.Root(), c.id, c.root)
		}
	}
	if got := capEff(status); got != "000001ffffffffff" {
		t.Errorf("capEff = %q", got)
	}
}
