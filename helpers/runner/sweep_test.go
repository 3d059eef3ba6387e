package runner

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/classproof/classproof/helpers/proc"
)

// The sweep removes a keyed build unused for a day only under its key's lock: one a run holds
// (building it, or about to start from it) stays.
func TestTheSweepTakesTheKeysLock(t *testing.T) {
	cache := t.TempDir()
	old := time.Now().Add(-48 * time.Hour)
	held, free := filepath.Join(cache, "bin-held"), filepath.Join(cache, "bin-free")
	for _, d := range []string{held, free} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(d, old, old); err != nil {
			t.Fatal(err)
		}
	}
	unlock, err := proc.Lock(held + ".lock")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	sweepStaleSuites(cache, "")
	if _, err := os.Stat(held); err != nil {
		t.Errorf("a build whose lock is held was swept: %v", err)
	}
	if _, err := os.Stat(free); err == nil {
		t.Error("an unused, unlocked build a day old was kept")
	}
}
