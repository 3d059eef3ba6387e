package binaries

import (
	"fmt"
	"os"
	"os/exec"
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

// A CLI that records no source folder and no version does not take its kit from the current
// folder's module: a launcher's repository with a go.work naming a kit of its own is refused.
func TestAGoWorkKitIsNeverTaken(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI")
	}
	tmp := t.TempDir()
	cli := filepath.Join(tmp, "classproof")
	b := exec.Command("go", "build", "-trimpath", "-o", cli, "./cmd/classproof")
	b.Dir, b.Env = "../..", append(os.Environ(), "GOFLAGS=-buildvcs=false")
	if out, err := b.CombinedOutput(); err != nil {
		t.Fatalf("building the CLI: %v\n%s", err, out)
	}
	repo, fake := filepath.Join(tmp, "launcher"), filepath.Join(tmp, "launcher", "fakekit")
	for path, body := range map[string]string{
		filepath.Join(repo, "go.mod"):     "module example.com/launcher\n\ngo 1.22\n",
		filepath.Join(fake, "go.mod"):     "module " + Module + "\n\ngo 1.22\n",
		filepath.Join(repo, "go.work"):    "go 1.22\n\nuse (\n\t.\n\t./fakekit\n)\n",
		filepath.Join(fake, "planted.go"): "package classproof\n",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(cli, "run", "--dry-run", "--out", filepath.Join(tmp, "out"))
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "CLASSPROOF_KIT=")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "finding the classproof kit: this binary records neither a source folder") || strings.Contains(string(out), "fakekit") {
		t.Errorf("a CLI with no source folder, started in a repository whose go.work names a kit: %v\n%s", err, out)
	}
}
