package oracle

import (
	"strings"
	"testing"
)

// A change is named once per kind of move, with every thread that moved so; threads started or
// ended between two readings are no change.
func TestChangedNamesWhatMovedAndNothingElse(t *testing.T) {
	first := Reading{Process: "autogroup 19", Threads: map[uint64]string{1: "idle", 2: "idle", 3: "idle", 4: "idle"}}
	same := Reading{Process: "autogroup 19", Threads: map[uint64]string{1: "idle", 2: "idle", 5: "normal"}}
	if c := Changed(first, same); c != "" {
		t.Errorf("a thread ended and one started: %q", c)
	}
	now := Reading{Process: "autogroup 0", Threads: map[uint64]string{1: "normal", 2: "idle", 3: "normal", 4: "batch"}}
	c := Changed(first, now)
	for _, want := range []string{"autogroup 0, first autogroup 19", threadName(1) + ", " + threadName(3) + ": normal, first idle", threadName(4) + ": batch, first idle"} {
		if !strings.Contains(c, want) {
			t.Errorf("change %q does not say %q", c, want)
		}
	}
	if strings.Contains(c, threadName(2)+":") {
		t.Errorf("change %q names a thread that did not move", c)
	}
	// A thread started since at another class than the main thread's is a renice too.
	first.Main = "idle"
	if c := Changed(first, same); !strings.Contains(c, threadName(5)+" (started since") || !strings.Contains(c, "normal, first idle") {
		t.Errorf("a thread started since at normal under an idle main thread: %q", c)
	}
	same.Threads[5] = "idle"
	if c := Changed(first, same); c != "" {
		t.Errorf("a thread started since at the main thread's class: %q", c)
	}
}
