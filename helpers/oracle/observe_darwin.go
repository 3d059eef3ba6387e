package oracle

import (
	"errors"
	"fmt"

	"github.com/classproof/classproof/helpers/base/proctable"
)

// addPlatform adds the task's base priority, a second outside view beside ps: pti_priority of
// proc_pidinfo PROC_PIDTASKINFO (helpers/base/proctable reads it; fill_taskprocinfo in XNU
// osfmk/kern/bsd_kern.c copies task->priority). With everyThread it reads each thread's base
// priority too (proctable.Threads: pth_priority, the thread's base_pri): PRIO_DARWIN_BG on a
// process lowers every thread of its task, PRIO_DARWIN_THREAD one thread, and ps pri is only the
// highest current priority among them (adv_cmds ps/print.c pri), which decays while a thread
// runs. A zombie, which ps shows with stat Z and pri 0, proves nothing, nor does a process on its
// way out (stat E: psEnded). Compiled, not run on macOS by this project (no Mac here).
func addPlatform(o *Observation, everyThread bool) error {
	if why := psEnded(o.Stat); why != "" {
		return errors.New(why)
	}
	t, err := proctable.TaskInfoOf(o.Pid)
	if err != nil {
		if everyThread { // its threads cannot be read either: say so rather than judge one
			return fmt.Errorf("reading its threads: %w", err)
		}
		o.BaseErr = err.Error()
		return nil
	}
	o.BasePri, o.BaseRead = int(t.Priority), true
	if !everyThread {
		return nil
	}
	threads, err := proctable.Threads(o.Pid)
	if err != nil {
		return err
	}
	if len(threads) == 0 {
		return fmt.Errorf("proc_pidinfo read none of its %d threads", t.Threads)
	}
	side := darwinSide(o.BasePri)
	o.Threads, o.ThreadsRef = len(threads), "the task's side of darwinbg ("+side+")"
	for _, th := range threads {
		if darwinSide(int(th.BasePri)) != side {
			o.OffThreads = append(o.OffThreads, fmt.Sprintf("thread %#x base pri %d", th.Handle, th.BasePri))
		}
	}
	return nil
}

// KernelSettings has no fast reading on macOS: the kit's own class is read with ps there.
func KernelSettings(int) (string, error) {
	return "", errors.New("no kernel settings reading on macOS: read with ps")
}

// darwinSide is which side of darwinbg a base priority is on: a thread's own base priority also
// moves with its QoS (GCD raises a worker for user-initiated work), so a per-thread reading on
// macOS judges the side, not the number.
func darwinSide(basePri int) string {
	if basePri <= DarwinBGPri {
		return "darwinbg"
	}
	return "above darwinbg"
}
