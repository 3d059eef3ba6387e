package main

import (
	"bytes"
	"crypto/sha256"
	"debug/macho"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/classproof/classproof/helpers/binaries"
)

// buildHarness builds the fixture harness for darwin with the release's linker flags.
func buildHarness(t *testing.T, ldflags, out string) []byte {
	t.Helper()
	cmd := exec.Command("go", "build", ldflags, "-o", out, binaries.HarnessPackage)
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "GOOS=darwin", "GOARCH=arm64", "CGO_ENABLED=0", "GOFLAGS=-trimpath -buildvcs=false", "GOWORK=off")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func hasUUID(t *testing.T, b []byte) bool {
	t.Helper()
	f, err := macho.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not a Mach-O: %v", err)
	}
	for _, l := range f.Loads {
		if raw := l.Raw(); len(raw) >= 4 && macho.LoadCmd(f.ByteOrder.Uint32(raw)) == macho.LoadCmd(0x1b) { // LC_UUID
			return true
		}
	}
	return false
}

// The release's darwin binaries carry LC_UUID (newer dyld policies and macOS's local-network
// privacy checks rely on it), and two builds of one commit are byte for byte the same.
func TestDarwinBuildsCarryAUUIDAndReproduce(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles for darwin")
	}
	dir := t.TempDir()
	flags := distLDFlags("v0.0.0-test")
	a := buildHarness(t, flags, filepath.Join(dir, "a", "harness"))
	b := buildHarness(t, flags, filepath.Join(dir, "b", "harness"))
	if !hasUUID(t, a) {
		t.Error("a darwin release binary has no LC_UUID")
	}
	if sha256.Sum256(a) != sha256.Sum256(b) {
		t.Error("two darwin builds of one commit differ")
	}
	// What the test guards against: the linker writes no LC_UUID without a build id.
	if hasUUID(t, buildHarness(t, flags+" -buildid=", filepath.Join(dir, "c", "harness"))) {
		t.Log("note: this Go writes LC_UUID even with an empty build id")
	}
}
