package docs

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// skeletonFocus is what the It skeleton's Describe says: the run below focuses on it.
const skeletonFocus = "a direct session started from a fresh daemon"

// specSkeleton runs CONTRIBUTING.md's It skeleton as a spec of the cpuclass suite, against the
// reference launcher, without touching the tree: go test's -overlay adds the block as a test file
// of suites/cpuclass. A skeleton that does not compile, or does not pass, fails here.
func specSkeleton(t *testing.T, dir string, b block) {
	if !strings.Contains(b.text, skeletonFocus) {
		t.Fatalf("%s: the skeleton's Describe no longer says %q; change skeletonFocus with it", b, skeletonFocus)
	}
	work := t.TempDir()
	src := filepath.Join(work, "skeleton_test.go")
	head := "package cpuclass_test\n\nimport (\n\t. \"github.com/onsi/ginkgo/v2\"\n\t. \"github.com/onsi/gomega\"\n\n" +
		"\t\"github.com/classproof/classproof/helpers/base/label\"\n\t\"github.com/classproof/classproof/helpers/launcher\"\n" +
		"\t\"github.com/classproof/classproof/helpers/suite\"\n)\n\n"
	if err := os.WriteFile(src, []byte(head+b.text), 0o644); err != nil {
		t.Fatal(err)
	}
	overlay := filepath.Join(work, "overlay.json")
	o, _ := json.Marshal(map[string]any{"Replace": map[string]string{filepath.Join(dir, "suites", "cpuclass", "zz_skeleton_test.go"): src}})
	if err := os.WriteFile(overlay, o, 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(vars string) (string, error) {
		cmd := exec.Command("go", "test", "-v", "-count=1", "-overlay", overlay, "./suites/cpuclass", "-ginkgo.focus", skeletonFocus)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "CLASSPROOF_VARS="+vars)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run(""); err != nil || !strings.Contains(out, "Ran 1 of") {
		t.Errorf("%s: the It skeleton, run in the cpuclass suite against refmux: %v (want one spec run, passed)\n%s", b, err, out)
	}
	// And it can fail: against refmux's noclass variant (no class set in the child) it is red.
	if out, err := run(`["variant=noclass"]`); err == nil || !strings.Contains(out, "Ran 1 of") {
		t.Errorf("%s: the It skeleton passed against refmux variant=noclass (want red: it asserts the class)\n%s", b, out)
	}
}
