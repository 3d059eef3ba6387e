package binaries

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
	if _, err := prebuiltSuites(root, nil, true); err == nil || !strings.Contains(err.Error(), "MANIFEST") {
		t.Errorf("an archive with no MANIFEST: %v", err)
	}
	if err := WriteArchiveManifest(root); err != nil {
		t.Fatal(err)
	}
	// Planted after the archive was made: not in its MANIFEST, so never run.
	write("suites/planted/planted.test", "#!/bin/sh\necho forged\n", 0o755)
	c, err := prebuiltSuites(root, nil, true)
	if err != nil || len(c.Suites) != 2 || !strings.HasSuffix(c.Suites[0], "suites/cpuclass/cpuclass.test") || c.Harness == "" || c.Ginkgo == "" {
		t.Fatalf("a whole archive, its MANIFEST's suites only: %+v, %v", c, err)
	}
	if err != nil || len(c.Suites) != 2 {
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
	if _, err := prebuiltSuites(root, []string{"./suites/planted"}, false); err == nil || !strings.Contains(err.Error(), "planted.test (not in MANIFEST)") {
		t.Errorf("a suite planted beside the archive's, asked for by name: %v", err)
	}
	if err := os.Chmod(filepath.Join(root, "bin/harness"), 0o755); err != nil {
		t.Fatal(err)
	}
	write("suites/resolve/resolve.test", "#!/bin/sh\necho forged\n", 0o755)
	if _, err := prebuiltSuites(root, nil, true); err == nil || !strings.Contains(err.Error(), "resolve.test is not the binary that was built") {
		t.Errorf("a suite changed after the archive was made: %v", err)
	}
}

// An archive extracted where others may write is refused, never used and never passed over for a
// build from source; so is a $CLASSPROOF_KIT there.
func TestAnArchiveOrKitInAFolderOthersMayWriteIsRefused(t *testing.T) {
	shared := filepath.Join(t.TempDir(), "shared")
	if err := os.MkdirAll(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o777); err != nil { // not sticky
		t.Fatal(err)
	}
	kit := filepath.Join(shared, "kit")
	if err := os.MkdirAll(kit, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(kit, "go.mod"), []byte("module "+Module+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CLASSPROOF_KIT", kit)
	if d, err := KitDir(); err == nil || !strings.Contains(err.Error(), "refusing to build or run the kit from it") {
		t.Errorf("$CLASSPROOF_KIT under a folder anyone may write: %q, %v", d, err)
	}
}
