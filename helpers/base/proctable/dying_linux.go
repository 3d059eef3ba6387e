package proctable

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// KillPending says whether pid is dying already: a SIGKILL waiting (/proc/PID/status SigPnd or
// ShdPnd) or taken and exiting (PF_EXITING in /proc/PID/stat's flags): the kit killed it, and
// the kernel has yet to finish.
func KillPending(pid int) bool {
	if st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		if i := bytes.LastIndexByte(st, ')'); i >= 0 {
			// field 9 is flags; fields after comm start at 3
			if f := bytes.Fields(st[i+1:]); len(f) > 6 {
				if flags, err := strconv.ParseUint(string(f[6]), 10, 64); err == nil && flags&pfExiting != 0 {
					return true
				}
			}
		}
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return true // gone
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, ":")
		if k == "SigPnd" || k == "ShdPnd" {
			if m, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64); err == nil && m&(1<<(unix.SIGKILL-1)) != 0 {
				return true
			}
		}
	}
	return false
}

const pfExiting = 0x4 // include/linux/sched.h PF_EXITING

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
