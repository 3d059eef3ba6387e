package proctable

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Exiting says whether the process pid is ending as a whole, for good: gone, or dead (Dead), or
// a SIGKILL in its shared pending set (/proc/PID/status ShdPnd: a kill of the process; no
// handler stops it), or every thread of it exiting (Stat.Exiting) or with a SIGKILL of its own
// pending (SigPnd: a fatal signal puts one on every thread). It is the kit's one rule for
// "dying": a process the kit killed is dying of that kill, not a leak, and the class of a process
// on its way out is no class it runs at (the watch, helpers/suite). A thread that has taken its
// SIGKILL and not yet set PF_EXITING shows neither, for a few instructions of get_signal; nothing
// of it is freed yet.
//
// One thread is not the process. A leader that ended alone (SYS_exit) is a zombie while its other
// threads run on (Stat.Dead), as is a thread that ended (pthread_exit); and exec puts a SIGKILL
// on every thread but the one that execs (fs/exec.c de_thread, zap_other_threads), which runs on
// as the new program with the same pid: a process that execs in a loop is no dying one. A read
// that fails for another reason than the process or thread being gone (EMFILE) says nothing of
// it: not dying.
func Exiting(pid int) bool {
	// A thread that ended while the others were read may be the one that execs taking the
	// leader's pid (de_thread), the rest read as zapped: read all again then, a few times.
	for try := 1; ; try++ {
		dying, vanished := exiting(pid)
		if !vanished || !dying || try == 3 {
			return dying
		}
	}
}

// exiting is one reading for Exiting; vanished says a thread ended while it was read.
func exiting(pid int) (dying, vanished bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return gone(err), false
	}
	if st, err := ParseStat(b); err == nil && st.Dead() {
		return true, false
	}
	d, err := os.Open(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return gone(err), false
	}
	tids, err := d.Readdirnames(MaxThreads)
	d.Close()
	switch {
	case errors.Is(err, io.EOF):
		return true, false // no thread left to list: the process is being released
	case err != nil:
		return false, false
	}
	for _, tid := range tids {
		ex, own, shared, err := taskDying(pid, tid)
		switch {
		case err != nil && gone(err):
			vanished = true // it ended since it was listed
		case err != nil:
			return false, false
		case shared:
			return true, false
		case !ex && !own:
			return false, false
		}
	}
	return true, vanished
}

// LeaderExited says pid's main thread ended on its own while its other threads run on: its stat
// shows Z with more than one thread. Such a process runs, yet has no executable to read
// (/proc/PID/exe reads ENOENT: the leader's memory is gone).
func LeaderExited(pid int) (bool, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false, err
	}
	st, err := ParseStat(b)
	return err == nil && st.State == 'Z' && st.Threads > 1, err
}

// gone says whether a read's error means the process or thread is no more.
func gone(err error) bool { return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH) }

// taskDying reads one thread of pid: whether it is exiting, and whether a SIGKILL is pending for
// it alone (own) or for the whole process (shared).
func taskDying(pid int, tid string) (exiting, own, shared bool, err error) {
	dir := fmt.Sprintf("/proc/%d/task/%s/", pid, tid)
	b, err := os.ReadFile(dir + "stat")
	if err != nil {
		return false, false, false, err
	}
	st, err := ParseStat(b)
	exiting = err == nil && st.Exiting()
	if b, err = os.ReadFile(dir + "status"); err != nil {
		return false, false, false, err
	}
	own, shared = killPending(b)
	return exiting, own, shared, nil
}

// killPending says whether a /proc/PID/task/TID/status text has a SIGKILL pending in the thread's
// own set (SigPnd) and in the process's (ShdPnd).
func killPending(status []byte) (own, shared bool) {
	for _, line := range strings.Split(string(status), "\n") {
		k, v, _ := strings.Cut(line, ":")
		if k == "SigPnd" || k == "ShdPnd" {
			if m, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64); err == nil && m&(1<<(unix.SIGKILL-1)) != 0 {
				own, shared = own || k == "SigPnd", shared || k == "ShdPnd"
			}
		}
	}
	return own, shared
}

// ClassOf is what the kernel says of pid's class, for a leak's line.
func ClassOf(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	switch {
	case gone(err):
		return "class unreadable: gone"
	case err != nil:
		return "class unreadable: " + err.Error()
	}
	st, err := ParseStat(b)
	if err != nil {
		return "class unreadable: " + err.Error()
	}
	nice, err := unix.Getpriority(unix.PRIO_PROCESS, pid)
	if err != nil {
		return fmt.Sprintf("policy %d", st.Policy)
	}
	// getpriority(2) returns 20-nice on Linux's raw syscall.
	return fmt.Sprintf("policy %d%s, nice %d", st.Policy, policyName(st.Policy), 20-nice)
}

// ThreadsClass is ClassOf each thread of pid that has not ended, for a receipt: a process whose
// leader thread ended alone reads as a zombie, while its other threads run on at their class.
func ThreadsClass(pid int) string {
	d, err := os.Open(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return "threads unreadable: " + err.Error()
	}
	tids, err := d.Readdirnames(MaxThreads)
	d.Close()
	if err != nil {
		return "threads unreadable: " + err.Error()
	}
	var out []string
	for _, tid := range tids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, tid))
		if st, perr := ParseStat(b); err == nil && perr == nil && !st.Exiting() {
			n, _ := strconv.Atoi(tid)
			out = append(out, fmt.Sprintf("thread %s: %s", tid, ClassOf(n)))
		}
	}
	if len(out) == 0 {
		return "no thread running"
	}
	return strings.Join(out, "; ")
}

func policyName(p int) string {
	switch p {
	case 0:
		return " SCHED_OTHER"
	case 3:
		return " SCHED_BATCH"
	case 5:
		return " SCHED_IDLE"
	}
	return ""
}
