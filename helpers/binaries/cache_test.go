package binaries

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/classproof/classproof/helpers/base/files"
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
	unlock, err := files.Lock(held + ".lock")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	sweepStale(cache, "")
	if _, err := os.Stat(held); err != nil {
		t.Errorf("a build whose lock is held was swept: %v", err)
	}
	if _, err := os.Stat(free); err == nil {
		t.Error("an unused, unlocked build a day old was kept")
	}
}

// Two checkouts with the same files get builds of their own: a test binary records its source
// paths, and a failure's location must name the checkout that ran, not the one that built first.
func TestEachCheckoutHasItsOwnBuildKey(t *testing.T) {
	kit, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "classproof")
	err = filepath.WalkDir(kit, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(kit, path)
		if d.IsDir() && (rel == ".git" || rel == "out" || rel == "bin") {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(other, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(other, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	a, err := hashKit(kit)
	if err != nil {
		t.Fatal(err)
	}
	b, err := hashKit(other)
	if err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Errorf("%s and its copy %s share the build key %s: one's binaries would name the other's files", kit, other, a)
	}
}
