package proctable

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// ClassOf is what the kernel says of pid's class, for a leak's line.
func ClassOf(pid int) string {
	nice, err := unix.Getpriority(unix.PRIO_PROCESS, pid)
	if err != nil {
		return "class unreadable: " + err.Error()
	}
	return fmt.Sprintf("nice %d", nice)
}

// Exiting says whether pid is dying already: gone, a zombie, or on its way out (P_WEXIT in
// kp_proc.p_flag, kinfo.exiting; ps shows E). A SIGKILL still pending is not seen: XNU shows no
// process's pending signals in kinfo_proc (bsd/kern/kern_sysctl.c fill_user64_externproc leaves
// p_siglist zero), and a killed thread runs at once, its throttles shot down before it exits
// (bsd/kern/kern_sig.c psignal_internal: TASK_POLICY_TERMINATED on the signalled thread).
// A read that fails for another reason than the process being gone says nothing of it: not
// dying, as on Linux.
func Exiting(pid int) bool {
	k, err := readKinfo(pid)
	if err != nil {
		return Gone(err)
	}
	return k.Stat == sZomb || k.exiting()
}

// ThreadsClass is ClassOf: a process's class is its task's here.
func ThreadsClass(pid int) string { return ClassOf(pid) }

// LeaderExited is Linux's: a thread's exit does not leave a process without its executable here.
func LeaderExited(int) (bool, error) { return false, nil }
