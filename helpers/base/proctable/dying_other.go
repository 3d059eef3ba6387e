//go:build !linux && !darwin

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

// Exiting is Linux's; elsewhere a process being killed is not told apart.
func Exiting(int) bool { return false }

// ThreadsClass is ClassOf: a process's class is its task's here.
func ThreadsClass(pid int) string { return ClassOf(pid) }

// LeaderExited is Linux's: a thread's exit does not leave a process without its executable here.
func LeaderExited(int) (bool, error) { return false, nil }
