package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The selected scheduler is the bracketed word of queue/scheduler; a file that cannot be read
// says unknown, never a scheduler it did not see.
func TestReadScheduler(t *testing.T) {
	dir := t.TempDir()
	for content, want := range map[string]string{
		"mq-deadline kyber [bfq] none\n": "bfq",
		"[none] mq-deadline kyber bfq\n": "none",
		"none\n":                         "unknown",
	} {
		p := filepath.Join(dir, "scheduler")
		os.WriteFile(p, []byte(content), 0o644)
		if got := readScheduler(p); got != want {
			t.Errorf("readScheduler(%q) = %q, want %q", content, got, want)
		}
	}
	if got := readScheduler(filepath.Join(dir, "missing")); got != "unknown" {
		t.Errorf("a missing file: %q", got)
	}
}

// Only bfq counts as honouring I/O priorities; anything else is labelled as not.
func TestSchedulerText(t *testing.T) {
	if got := (&IOResult{Scheduler: "bfq", Honoured: true}).SchedulerText(); got != "bfq (priorities honoured)" {
		t.Error(got)
	}
	if got := (&IOResult{Scheduler: "mq-deadline"}).SchedulerText(); got != "mq-deadline (priorities not honoured)" {
		t.Error(got)
	}
}

// The disk image is never written through a symlink planted where it goes (as root the bench
// once overwrote a regular file with a 1 GiB ext4 image that way); a regular file a killed run
// left is replaced.
func TestNewImageNeverFollowsASymlink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	img := filepath.Join(dir, "io-disk.img")
	if err := os.Symlink(victim, img); err != nil {
		t.Fatal(err)
	}
	if err := newImage(img, 1<<20); err == nil || !strings.Contains(err.Error(), "is not a regular file") {
		t.Errorf("a symlinked image path was accepted: %v", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Errorf("the symlink's target was written: %d bytes", len(b))
	}
	stale := filepath.Join(dir, "stale.img")
	if err := os.WriteFile(stale, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := newImage(stale, 1<<20); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(stale); err != nil || fi.Size() != 1<<20 || !fi.Mode().IsRegular() {
		t.Errorf("a stale image was not replaced by a new one: %v %v", fi, err)
	}
}
