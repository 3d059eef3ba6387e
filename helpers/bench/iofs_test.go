package bench

import (
	"os"
	"path/filepath"
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
