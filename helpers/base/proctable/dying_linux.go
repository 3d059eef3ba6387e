package proctable

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Exiting says whether the process pid is ending as a whole, for good: gone, or dead (Dead), or
// a SIGKILL pending for it or any of its threads (/proc/PID/task/TID/status ShdPnd, SigPnd: a
// fatal signal, exit_group and a kill each put one on every thread, and no handler stops it), or
// every thread of it exiting (Stat.Exiting). It is the kit's one rule for "dying": a process the
// kit killed is dying of that kill, not a leak, and the class of a process on its way out is no
// class it runs at (the watch, helpers/suite). A thread that has taken its SIGKILL and not yet
// set PF_EXITING shows neither, for a few instructions of get_signal; nothing of it is freed yet.
//
// One thread exiting is not the process: a leader that ended alone (SYS_exit) is a zombie while
// its other threads run on (Stat.Dead), as is a thread that ended (pthread_exit); what such a
// thread reads is left out where threads are read (helpers/oracle), and the process is judged by
// the threads that run.
func Exiting(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // gone
	}
	if st, err := ParseStat(b); err == nil && st.Dead() {
		return true
	}
	d, err := os.Open(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return true
	}
	tids, err := d.Readdirnames(MaxThreads)
	d.Close()
	if err != nil {
		return true
	}
	all := true
	for _, tid := range tids {
		exiting, kill := taskDying(pid, tid)
		if kill {
			return true
		}
		all = all && exiting
	}
	return all
}

// taskDying reads one thread of pid: whether it is exiting (a thread that ended since it was
// listed is), and whether a SIGKILL is pending for it.
func taskDying(pid int, tid string) (exiting, kill bool) {
	dir := fmt.Sprintf("/proc/%d/task/%s/", pid, tid)
	b, err := os.ReadFile(dir + "stat")
	if err != nil {
		return true, false
	}
	st, err := ParseStat(b)
	exiting = err == nil && st.Exiting()
	if b, err = os.ReadFile(dir + "status"); err != nil {
		return true, false
	}
	return exiting, killPending(b)
}

// killPending says whether a /proc/PID/task/TID/status text has a SIGKILL pending: in the
// thread's own set (SigPnd) or the process's (ShdPnd).
func killPending(status []byte) bool {
	for _, line := range strings.Split(string(status), "\n") {
		k, v, _ := strings.Cut(line, ":")
		if k == "SigPnd" || k == "ShdPnd" {
			if m, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64); err == nil && m&(1<<(unix.SIGKILL-1)) != 0 {
				return true
			}
		}
	}
	return false
}

// ClassOf is what the kernel says of pid's class, for a leak's line.
func ClassOf(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "class unreadable: gone"
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
