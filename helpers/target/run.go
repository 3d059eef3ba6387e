package target

import (
	"fmt"
	"os/exec"
	"strings"
)

// The environment a run hands the suites: the CLI (helpers/runner) sets these, the suites' glue
// (helpers/kit) reads them. They live here, below both, so that the CLI side never links the
// Ginkgo DSL to name them.
const (
	TargetEnv = "CLASSPROOF_TARGET" // a manifest path or embedded:NAME; unset: the embedded default
	VarsEnv   = "CLASSPROOF_VARS"   // ["variant=noclass","note=a b"] (EncodeVars): overrides of the manifest's vars
	BinEnv    = "CLASSPROOF_BIN"    // a folder where the launcher is already built: no build step
	RepoEnv   = "CLASSPROOF_REPO"   // the launcher's source tree, for {repo}
)

// HarnessPackage is the fixture harness every target runs as its agent harness.
const HarnessPackage = "github.com/classproof/classproof/fixtures/harness"

// KitDir is the classproof module's root, where the suites live and the embedded manifests'
// build steps run.
func KitDir() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/classproof/classproof").Output()
	if err != nil {
		return "", fmt.Errorf("finding the classproof module with go list: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}
