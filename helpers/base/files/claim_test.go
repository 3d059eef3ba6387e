package files

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A harness report the launcher's processes replaced: a symlink to /dev/zero (which once ran the
// test process out of memory), a FIFO nobody writes (which would block), a file too large. Each
// is refused at once, naming the path; a small regular file is read.
func TestAClaimIsARegularFileOfBoundedSize(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "report.json")
	os.WriteFile(good, []byte(`{"harness_pid": 4242}`), 0o600)
	if b, err := ReadClaim(good, 64); err != nil || string(b) != `{"harness_pid": 4242}` {
		t.Errorf("a small report: %q %v", b, err)
	}
	zero := filepath.Join(dir, "zero.json")
	os.Symlink("/dev/zero", zero)
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.json")
	os.WriteFile(big, []byte(strings.Repeat("x", 65)), 0o600)
	for path, want := range map[string]string{zero: "is a symlink", fifo: "is not a regular file", big: "is over 64 bytes"} {
		start := time.Now()
		_, err := ReadClaim(path, 64)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v; want %q", path, err, want)
		}
		if time.Since(start) > time.Second {
			t.Errorf("%s took %v to refuse", path, time.Since(start))
		}
	}
}

// WriteBeneath writes below a folder another user owns without following anything they planted
// there: a symlinked file or folder and a hard link to someone else's file are refused, and the
// target is untouched.
func TestWriteBeneathFollowsNothingPlanted(t *testing.T) {
	root, elsewhere := t.TempDir(), t.TempDir()
	victim := filepath.Join(elsewhere, "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteBeneath(root, "a/b/f.json", []byte("one"), -1, -1); err != nil {
		t.Fatalf("a fresh file in fresh folders: %v", err)
	}
	if err := WriteBeneath(root, "a/b/f.json", []byte("2"), -1, -1); err != nil {
		t.Fatalf("rewriting it: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a/b/f.json")); string(b) != "2" {
		t.Errorf("rewritten: %q, want %q", b, "2")
	}
	os.Symlink(victim, filepath.Join(root, "link"))
	os.Symlink(elsewhere, filepath.Join(root, "dirlink"))
	os.Link(victim, filepath.Join(root, "hard"))
	for rel, want := range map[string]string{"link": "symlink", "dirlink/victim": "symlink", "hard": "one link", "../x": "not a path below"} {
		err := WriteBeneath(root, rel, []byte("planted"), -1, -1)
		if err == nil || !strings.Contains(err.Error(), want) && !strings.Contains(err.Error(), "too many levels") {
			t.Errorf("%s: %v; want a refusal (%s)", rel, err, want)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("the file a planted link named was written: %q", b)
	}
}
