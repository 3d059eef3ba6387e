package build

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// With no $HOME the cache falls back to a folder in the temp folder whose name anyone can guess:
// one another user made first is refused, never built into or run from.
func TestACacheFolderAnotherUserMadeIsRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a folder to another user")
	}
	tmp := t.TempDir()
	t.Setenv("HOME", "")
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("TMPDIR", tmp)
	planted := filepath.Join(tmp, fmt.Sprintf("classproof-cache-%d", os.Geteuid()))
	if err := os.Mkdir(planted, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(planted, 12345, 12345); err != nil {
		t.Fatal(err)
	}
	dir, err := CacheDir()
	if err == nil || !strings.Contains(err.Error(), planted+" is owned by uid 12345") {
		t.Fatalf("a cache folder another user made was used: %q, %v", dir, err)
	}
}
