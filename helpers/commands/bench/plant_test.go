package bench_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/classproof/classproof/fixtures/targets"
	"github.com/classproof/classproof/helpers/commands/bench"
)

// The launcher's build step runs before the I/O bench makes its work folder, as the kit's user:
// with the sandbox off it could plant --out/io-work as a symlink to a folder of someone else's
// (the sandbox refuses that write; the test plants it itself, so it holds either way). Nothing is
// written, truncated or deleted there.
func TestAPlantedIOWorkSymlinkReachesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the launcher")
	}
	refmux, err := targets.Resolve("", "", nil, "")
	if err != nil {
		t.Fatal(err)
	}
	victim, out := t.TempDir(), t.TempDir()
	// Where a root kit's launcher user (nobody) reaches it, as the bench asks of --out.
	for _, d := range []string{filepath.Dir(out), out} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"fg-data", "fg-log", "load-1"} {
		if err := os.WriteFile(filepath.Join(victim, f), []byte("the victim's\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(victim, filepath.Join(out, "io-work")); err != nil {
		t.Fatal(err)
	}
	_, err = bench.IOBench(context.Background(), bench.IOOptions{Target: refmux,
		N: 1, Runs: 1, Duration: 300 * time.Millisecond, OutDir: out, NoLoop: true, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	ds, _ := os.ReadDir(victim)
	if len(ds) != 3 {
		t.Errorf("the victim's folder holds %d entries, want its 3", len(ds))
	}
	for _, f := range []string{"fg-data", "fg-log", "load-1"} {
		if b, err := os.ReadFile(filepath.Join(victim, f)); err != nil || string(b) != "the victim's\n" {
			t.Errorf("the victim's %s was changed: %d bytes now, starting %.24q (%v)", f, len(b), b, err)
		}
	}
}
