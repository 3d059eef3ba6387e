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
	r := Reading{Process: fmt.Sprintf("task base pri %d", t.Priority), Threads: make(map[uint64]string, len(threads))}
	for _, th := range threads {
		r.Threads[th.Handle] = fmt.Sprintf("base pri %d", th.BasePri)
	}
	return r, nil
}

func threadName(h uint64) string { return fmt.Sprintf("thread %#x", h) }
