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

// A change counts where two readings say it alike: a thread read once at another class (as it
// exits, say) is none, a renice seen twice is, and only what both saw is named.
func TestConfirmedCountsWhatTwoReadingsSayAlike(t *testing.T) {
	first := Reading{Process: "autogroup 19", Main: "idle", Threads: map[uint64]string{1: "idle", 2: "idle", 3: "idle"}}
	exiting := Reading{Process: "autogroup 19", Threads: map[uint64]string{1: "none", 2: "idle", 3: "idle"}}
	after := Reading{Process: "autogroup 19", Threads: map[uint64]string{2: "idle", 3: "idle"}}
	if c := Confirmed(first, exiting, after); c != "" {
		t.Errorf("tid 1 read none once, then gone: %q", c)
	}
	if c := Confirmed(first, exiting, exiting); !strings.Contains(c, threadName(1)+": none, first idle") {
		t.Errorf("tid 1 read none twice: %q", c)
	}
	// A raise under way: tid 2 raised by the first reading, tid 3 by the second too.
	a := Reading{Process: "autogroup 19", Threads: map[uint64]string{1: "idle", 2: "normal", 3: "idle"}}
	b := Reading{Process: "autogroup 0", Threads: map[uint64]string{1: "idle", 2: "normal", 3: "normal", 4: "normal"}}
	c := Confirmed(first, a, b)
	if !strings.Contains(c, threadName(2)+": normal, first idle") || strings.Contains(c, threadName(3)) || strings.Contains(c, threadName(4)) || strings.Contains(c, "autogroup") {
		t.Errorf("tid 2 raised in both readings, tid 3, tid 4 and the autogroup in the second alone: %q", c)
	}
	if c := Confirmed(first, b, b); !strings.Contains(c, "autogroup 0, first autogroup 19") || !strings.Contains(c, threadName(4)+" (started since") {
		t.Errorf("the same raise read twice: %q", c)
	}
}
