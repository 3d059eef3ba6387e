package launcher

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/classproof/classproof/helpers/base/confine"
	"github.com/classproof/classproof/helpers/base/identity"
)

// An earlier build planted {cache}/p -> a root-owned folder (dist-packages, say); a manifest
// then declares {cache}/p/sitecustomize under build.writes. A root kit must not make that folder
// through the link and hand it over (issue 53: the sandboxed build wrote __init__.py there and a
// root python3 ran it): what lies below the launcher's folders is made as its user.
func TestConfineMakesNothingThroughTheLaunchersSymlink(t *testing.T) {
	id := identity.Launcher()
	if os.Geteuid() != 0 || !id.Other() {
		t.Skipf("needs a root kit whose launcher is another user; uid %d, launcher %v", os.Geteuid(), id)
	}
	top := t.TempDir()
	for _, p := range []string{filepath.Dir(top), top} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cache, rootOwned := filepath.Join(top, "cache"), filepath.Join(top, "dist-packages")
	for _, d := range []string{cache, rootOwned} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chown(cache, id.Uid, id.Gid); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(rootOwned, filepath.Join(cache, "p")); err != nil {
		t.Fatal(err)
	}
	c, err := newConfined(id, confine.Policy{Dirs: []string{filepath.Join(cache, "p", "sitecustomize")}})
	if c != nil {
		c.sp.Close()
	}
	if _, serr := os.Stat(filepath.Join(rootOwned, "sitecustomize")); serr == nil || err == nil {
		t.Fatalf("newConfined through {cache}/p -> %s: err %v, and the folder %s exists: %v", rootOwned, err, filepath.Join(rootOwned, "sitecustomize"), serr == nil)
	}

	fresh := filepath.Join(cache, "fresh", "deeper")
	c, err = newConfined(id, confine.Policy{Dirs: []string{fresh}})
	if err != nil {
		t.Fatalf("newConfined of a new folder below the launcher's own: %v", err)
	}
	c.sp.Close()
	fi, err := os.Stat(fresh)
	if err != nil || int(fi.Sys().(*syscall.Stat_t).Uid) != id.Uid {
		t.Fatalf("%s: %v; expected a folder of uid %d", fresh, err, id.Uid)
	}
}

// A folder the launcher's user may write without owning it (0777, no sticky bit): a spec's
// process could plant a symlink there while the kit makes a folder below it, so the kit makes it
// as that user (review: root made a folder in a root-only 0700 folder, in 5 races of 5).
func TestConfineMakesNothingThroughAFolderTheUserMayWrite(t *testing.T) {
	id := identity.Launcher()
	if os.Geteuid() != 0 || !id.Other() {
		t.Skipf("needs a root kit whose launcher is another user; uid %d, launcher %v", os.Geteuid(), id)
	}
	top := t.TempDir()
	for _, p := range []string{filepath.Dir(top), top} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	shared, rootOnly := filepath.Join(top, "shared"), filepath.Join(top, "root-only")
	if err := os.Mkdir(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(rootOnly, 0o700); err != nil {
		t.Fatal(err)
	}
	// The race, already won: the name the kit is about to make is a link into root's folder.
	if err := os.Symlink(rootOnly, filepath.Join(shared, "x")); err != nil {
		t.Fatal(err)
	}
	c, err := newConfined(id, confine.Policy{Dirs: []string{filepath.Join(shared, "x", "y")}})
	if c != nil {
		c.sp.Close()
	}
	if _, serr := os.Stat(filepath.Join(rootOnly, "y")); serr == nil || err == nil {
		t.Fatalf("newConfined of shared/x/y with shared/x -> %s: err %v; %s made: %v", rootOnly, err, filepath.Join(rootOnly, "y"), serr == nil)
	}
}
