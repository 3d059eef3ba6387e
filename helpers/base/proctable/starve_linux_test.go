package proctable

import (
	"errors"
	"os"
	"testing"
	"time"
)

// A process that shows no arguments while it lives (a kernel thread here; a harness in the
// middle of exec in a run) is waited on for the time given, then named as such; one that shows
// them is read at once.
func TestArgsAfterExecWaitsOnAProcessWithNone(t *testing.T) {
	if args, err := ArgsAfterExec(os.Getpid(), time.Minute, time.Now()); err != nil || len(args) == 0 || args[0] != os.Args[0] {
		t.Fatalf("our own arguments: %q %v", args, err)
	}
	kthread := 0
	table, err := Table()
	if err != nil {
		t.Fatal(err)
	}
	for pid, in := range table {
		if _, err := Args(pid); errors.Is(err, ErrNoArgs) && !in.Zombie {
			kthread = pid
			break
		}
	}
	if kthread == 0 {
		t.Skip("no process here shows no arguments (no kernel thread in this pid namespace)")
	}
	start := time.Now()
	_, err = ArgsAfterExec(kthread, 50*time.Millisecond, start.Add(time.Minute))
	if took := time.Since(start); !errors.Is(err, ErrNoArgs) || took < 50*time.Millisecond || took > StarvedFactor*time.Second {
		t.Errorf("pid %d, which shows no arguments: %v after %v; want ErrNoArgs after 50ms or more", kthread, err, took)
	}
	// A deadline shared over many processes ends the wait however long each may take.
	start = time.Now()
	if _, err = ArgsAfterExec(kthread, time.Minute, start.Add(30*time.Millisecond)); !errors.Is(err, ErrNoArgs) || time.Since(start) > time.Second {
		t.Errorf("pid %d with a deadline 30ms off: %v after %v; want ErrNoArgs at the deadline", kthread, err, time.Since(start))
	}
}
