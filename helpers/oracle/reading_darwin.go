package oracle

import (
	"fmt"

	"github.com/classproof/classproof/helpers/base/proctable"
)

// Read is a Reading of pid: the task's base priority and each thread's (proctable.Threads), which
// PRIO_DARWIN_BG lowers to 4. Compiled, not run on macOS by this project (no Mac here).
func Read(pid int) (Reading, error) {
	t, err := proctable.TaskInfoOf(pid)
	if err != nil {
		return Reading{}, err
	}
	threads, err := proctable.Threads(pid)
	if err != nil {
		return Reading{}, err
	}
	if len(threads) == 0 {
		return Reading{}, fmt.Errorf("proc_pidinfo read no thread of pid %d (%d listed)", pid, t.Threads)
	}
	// Which side of darwinbg, not the number: a thread's base priority moves with its QoS as
	// it takes work (GCD), which is no renice; crossing the line is.
	r := Reading{Process: "task " + darwinSide(int(t.Priority)), Main: darwinSide(int(t.Priority)), Threads: make(map[uint64]string, len(threads))}
	for _, th := range threads {
		r.Threads[th.Handle] = darwinSide(int(th.BasePri))
	}
	return r, nil
}

func threadName(h uint64) string { return fmt.Sprintf("thread %#x", h) }
