package launcher

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/classproof/classproof/helpers/base/sandbox"
)

// A relative argv[0] (build.run: ["./build.sh"] with build.dir) names a file in the command's own
// folder, where exec looks for it, not in the kit's (a false red seen in review).
func TestARelativeCommandIsFoundInItsOwnFolder(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "build.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Up to, not including, the temp folder: TMPDIR may end in "/" (macOS's does), which a
	// comparison with os.TempDir() never meets, and the temp folder itself is not the test's.
	top := filepath.Clean(os.TempDir()) + string(filepath.Separator)
	for p := dir; strings.HasPrefix(p, top); p = filepath.Dir(p) {
		_ = os.Chmod(p, 0o755) // reachable by a root kit's launcher user
	}
	got, err := executable(sandbox.LauncherIdentity(), "./build.sh", dir)
	if err != nil || got != "./build.sh" {
		t.Fatalf(`executable("./build.sh", %s) = %q, %v; want "./build.sh" and no error`, dir, got, err)
	}
}
