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
	if args, err := ArgsAfterExec(os.Getpid(), time.Minute); err != nil || len(args) == 0 || args[0] != os.Args[0] {
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
	_, err = ArgsAfterExec(kthread, 50*time.Millisecond)
	if took := time.Since(start); !errors.Is(err, ErrNoArgs) || took < 50*time.Millisecond || took > StarvedFactor*time.Second {
		t.Errorf("pid %d, which shows no arguments: %v after %v; want ErrNoArgs after 50ms or more", kthread, err, took)
	}
}
