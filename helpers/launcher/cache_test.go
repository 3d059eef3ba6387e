package launcher

import (
	"fmt"
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
