package launcher

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/classproof/classproof/helpers/base/identity"
	"github.com/classproof/classproof/helpers/manifest"
)

// A relative argv[0] (build.run: ["./build.sh"] with build.dir) names a file in the command's own
// folder, where exec looks for it, not in the kit's (a false red seen in review).
func TestARelativeCommandIsFoundInItsOwnFolder(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "build.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	reachableBelowTemp(dir)
	got, err := executable(identity.Launcher(), "./build.sh", dir)
	if err != nil || got != "./build.sh" {
		t.Fatalf(`executable("./build.sh", %s) = %q, %v; want "./build.sh" and no error`, dir, got, err)
	}
}

// A binary's error gives the way out that fits where it came from: the build step for a build's
// missing binary; what made it (Made: a release archive's prebuilt launcher, whose user has no
// build step or Go) in its place; for a folder the launcher's user cannot pass, that folder's
// way out, never a build step (issue 67).
func TestABinarysErrorGivesTheWayOutThatFitsWhereItCameFrom(t *testing.T) {
	m, err := manifest.Parse("m.yaml", []byte(good+"build:\n  run: [make, \"{bin}\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	reachableBelowTemp(bin)
	d, err := New(m, manifest.Paths{Bin: bin}, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.CheckBinaries(); err == nil || !strings.Contains(err.Error(), "(the build step should make it: make {bin})") {
		t.Errorf("a build's missing binary: %v; want the build step named", err)
	}
	bare, err := manifest.Parse("m.yaml", []byte(strings.ReplaceAll(good, `"{bin}/t"`, "classproof-test-no-such-tool")+"build:\n  run: [make, \"{bin}\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if db, _ := New(bare, manifest.Paths{Bin: bin}, ""); db == nil {
		t.Fatal("no driver")
	} else if err := db.CheckBinaries(); err == nil || !strings.Contains(err.Error(), "classproof-test-no-such-tool") || strings.Contains(err.Error(), "build step") {
		t.Errorf("a command looked up on PATH: %v; want it named, and no build step (none makes a PATH tool)", err)
	}
	d.Made = "the release archive at /x holds it prebuilt: extract the archive again"
	if err := d.CheckBinaries(); err == nil || !strings.Contains(err.Error(), "("+d.Made+")") || strings.Contains(err.Error(), "build step") {
		t.Errorf("an archive's missing binary: %v; want what made it, and no build step", err)
	}
	if !identity.Launcher().Other() {
		t.Skip("the rest needs a root kit whose launcher runs as another user (Linux, as root)")
	}
	if err := os.WriteFile(filepath.Join(bin, "t"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(bin, 0o700); err != nil {
		t.Fatal(err)
	}
	err = d.CheckBinaries()
	real, _ := filepath.EvalSymlinks(bin) // the kit names the folder as it is, past a symlinked TMPDIR
	for _, want := range []string{"cannot pass through " + real, "chmod o+x", "CLASSPROOF_LAUNCHER_UID=0"} {
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "extract the archive") {
			t.Errorf("a binary below a folder the launcher's user cannot pass: %v; want %q, and not what made it", err, want)
		}
	}
}

// reachableBelowTemp makes dir and the folders above it reachable by a root kit's launcher user,
// up to, not including, the temp folder: TMPDIR may end in "/" (macOS's does), which a comparison
// with os.TempDir() never meets (a loop that went on to chmod /tmp and / to 0755), and the temp
// folder itself is not the test's.
func reachableBelowTemp(dir string) {
	top := filepath.Clean(os.TempDir()) + string(filepath.Separator)
	for p := dir; strings.HasPrefix(p, top); p = filepath.Dir(p) {
		_ = os.Chmod(p, 0o755)
	}
}
