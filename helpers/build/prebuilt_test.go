package build

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A release archive is used only when its VERSION is the binary's own, and only whole: a missing
// suite, harness or ginkgo CLI is an error naming it, never a run with less.
func TestAnArchiveIsUsedOnlyWhenItsVersionMatchesAndItIsWhole(t *testing.T) {
	old := DistVersion
	t.Cleanup(func() { DistVersion = old })
	root := t.TempDir()
	write := func(rel, body string, mode os.FileMode) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("VERSION", "v1.2.3\n", 0o644)
	DistVersion = ""
	if isPrebuilt(root) == nil {
		t.Error("a binary built outside make dist took an archive as its own")
	}
	DistVersion = "v1.2.4"
	if err := isPrebuilt(root); err == nil || !strings.Contains(err.Error(), `VERSION is "v1.2.3"; this binary is "v1.2.4"`) {
		t.Errorf("another version's archive: %v", err)
	}
	DistVersion = "v1.2.3"
	if err := isPrebuilt(root); err != nil {
		t.Fatalf("its own version's archive: %v", err)
	}
	for _, b := range []string{"bin/ginkgo", "bin/harness", "suites/cpuclass/cpuclass.test", "suites/resolve/resolve.test"} {
		write(b, "#!/bin/sh\n", 0o755)
	}
	c, err := prebuiltSuites(root, nil, true)
	if err != nil || len(c.Suites) != 2 || !strings.HasSuffix(c.Suites[0], "suites/cpuclass/cpuclass.test") || c.Harness == "" || c.Ginkgo == "" {
		t.Fatalf("a whole archive: %+v, %v", c, err)
	}
	if c, err := prebuiltSuites(root, []string{"./suites/resolve"}, false); err != nil || len(c.Suites) != 1 || c.Harness != "" {
		t.Errorf("one suite, no harness: %+v, %v", c, err)
	}
	if err := os.Chmod(filepath.Join(root, "bin/harness"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := prebuiltSuites(root, nil, true); err == nil || !strings.Contains(err.Error(), "bin/harness") {
		t.Errorf("an archive whose harness cannot run: %v", err)
	}
	if _, err := prebuiltSuites(root, []string{"./suites/compat"}, false); err == nil || !strings.Contains(err.Error(), "compat.test") {
		t.Errorf("a suite the archive lacks: %v", err)
	}
}
