package oracle

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/classproof/classproof/helpers/base/proctable"
)

// threadClass is one thread's class as Linux keeps it: the policy, nice value and real-time
// priority of /proc/PID/task/TID/stat, and ioprio_get(IOPRIO_WHO_PROCESS, TID), which names one
// thread (sched_setscheduler(pid) and ioprio_set(pid) change the main thread alone, and a thread
// inherits its creator's class, not the process's).
type threadClass struct {
	policy, nice, rt int
	ioprio           uintptr
}

// effectiveIO is an I/O priority as it acts: class none has no level of its own (it follows the
// nice value), and a kernel before the get_task_ioprio rework answers (none, 4) for a thread
// without an I/O context and (none, 0) for one with, two readings of one class.
func effectiveIO(ioprio uintptr) uintptr {
	if ioprio>>13 == 0 {
		return 0
	}
	return ioprio
}

func (t threadClass) String() string {
	return fmt.Sprintf("policy %d %s nice %d rt %d io class %s level %d", t.policy, policyNames[t.policy], t.nice, t.rt,
		ioClassNames[int(t.ioprio>>13)], t.ioprio&0xff)
}

// errExiting is readThreadClass of a thread on its way out (proctable.Stat.Exiting).
var errExiting = errors.New("the thread is exiting")

// readThreadClass reads one thread of pid: its I/O priority first, then its stat, which says
// whether the thread was exiting already: do_exit sets PF_EXITING before it frees the thread's
// I/O context (kernel/exit.c), so an I/O class read as none because the context was gone is
// always followed by a stat that says so, and such a thread is errExiting, not a class.
func readThreadClass(pid, tid int) (threadClass, error) {
	r, _, e := unix.Syscall(unix.SYS_IOPRIO_GET, ioprioWhoProcess, uintptr(tid), 0)
	if e != 0 {
		return threadClass{}, fmt.Errorf("ioprio_get(%d): %w", tid, e)
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/stat", pid, tid))
	if err != nil {
		return threadClass{}, err
	}
	st, err := proctable.ParseStat(b)
	if err != nil {
		return threadClass{}, err
	}
	if st.Exiting() {
		return threadClass{}, errExiting
	}
	return threadClass{policy: st.Policy, nice: st.Nice, rt: st.RTPriority, ioprio: effectiveIO(r)}, nil
}

// tids lists pid's threads, at most proctable.MaxThreads of them: a launcher's process is a
// claim, its thread count too.
func tids(pid int) ([]int, error) {
	d, err := os.Open(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(proctable.MaxThreads)
	if err != nil {
		return nil, fmt.Errorf("listing the threads of pid %d: %w", pid, err)
	}
	if more, _ := d.Readdirnames(1); len(more) > 0 {
		return nil, fmt.Errorf("pid %d has more than %d threads: not judged", pid, proctable.MaxThreads)
	}
	var out []int
	for _, n := range names {
		if tid, err := strconv.Atoi(n); err == nil {
			out = append(out, tid)
		}
	}
	slices.Sort(out)
	return out, nil
}

// threadClasses reads every thread of pid; one that ended between the list and its read, or is
// on its way out (errExiting), is left out: it has no class left to judge.
func threadClasses(pid int) (map[int]threadClass, error) {
	ts, err := tids(pid)
	if err != nil {
		return nil, err
	}
	out := make(map[int]threadClass, len(ts))
	for _, tid := range ts {
		c, err := readThreadClass(pid, tid)
		if errors.Is(err, errExiting) {
			continue
		}
		if err != nil {
			if _, gone := os.Stat(fmt.Sprintf("/proc/%d/task/%d", pid, tid)); gone != nil {
				continue
			}
			return nil, fmt.Errorf("thread %d of pid %d: %w", tid, pid, err)
		}
		out[tid] = c
	}
	return out, nil
}

// readThreads fills Threads and OffThreads: each thread whose class is not main's (the class ps
// and /proc/PID/stat read, the main thread's).
func (o *Observation) readThreads(main threadClass) error {
	all, err := threadClasses(o.Pid)
	if err != nil {
		return err
	}
	o.Threads, o.ThreadsRef = len(all), "the main thread's class ("+main.String()+")"
	for _, tid := range slices.Sorted(maps.Keys(all)) {
		if c := all[tid]; tid != o.Pid && c != main {
			o.OffThreads = append(o.OffThreads, fmt.Sprintf("tid %d %s", tid, c))
		}
	}
	return nil
}
