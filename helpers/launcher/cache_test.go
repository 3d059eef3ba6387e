package launcher

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/classproof/classproof/helpers/base/sandbox"
)

// A target's build writes the compiler cache its later builds trust ({cache}, HOME below it):
// another manifest, someone else's launcher, gets a folder of its own, as does another launcher
// user (issue 53: a hostile target's build rewrote a Go cache entry and a red build passed).
func TestEachManifestHasABuildCacheOfItsOwn(t *testing.T) {
	mine, theirs := BuildCache("/work/mylauncher/classproof.yaml"), BuildCache("/tmp/hostile/classproof.yaml")
	if mine == theirs {
		t.Fatalf("two manifests share {cache} %s", mine)
	}
	if again := BuildCache("/work/mylauncher/classproof.yaml"); again != mine {
		t.Errorf("one manifest's {cache} moved between calls: %s, then %s", mine, again)
	}
	user := fmt.Sprintf("uid-%d", sandbox.LauncherIdentity().Uid)
	if filepath.Base(filepath.Dir(mine)) != user || !strings.Contains(mine, "classproof-launchers") {
		t.Errorf("{cache} %s is not below classproof-launchers/%s", mine, user)
	}
}

// A relative argv[0] (build.run: ["./build.sh"] with build.dir) names a file in the command's own
// folder, where exec looks for it, not in the kit's (a false red seen in review).
func TestARelativeCommandIsFoundInItsOwnFolder(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "build.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for p := dir; p != os.TempDir(); p = filepath.Dir(p) {
		_ = os.Chmod(p, 0o755) // reachable by a root kit's launcher user
	}
	got, err := executable("./build.sh", dir)
	if err != nil || got != "./build.sh" {
		t.Fatalf(`executable("./build.sh", %s) = %q, %v; want "./build.sh" and no error`, dir, got, err)
	}
}
