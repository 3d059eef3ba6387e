package class

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// proc_info(2) call numbers (XNU bsd/sys/proc_info.h): PROC_INFO_CALL_PIDINFO, PROC_PIDTASKINFO.
const (
	procInfoCallPidinfo = 2
	procPidTaskInfo     = 4
)

// addPlatform adds the task's base priority, a second outside view beside ps: proc_pidinfo
// PROC_PIDTASKINFO is allowed for a caller of the same uid (XNU bsd/kern/proc_info.c
// proc_pidinfo: CHECK_SAME_USER for this flavor). A zombie, which ps shows with stat Z and pri 0,
// proves nothing. Compiled, not run on macOS by this project (no Mac here).
func addPlatform(o *Observation) error {
	if strings.HasPrefix(o.Stat, "Z") {
		return errors.New("a zombie (exited, not yet reaped): its class proves nothing")
	}
	pri, err := taskPriority(o.Pid)
	if err != nil {
		o.BaseErr = err.Error()
		return nil
	}
	o.BasePri, o.BaseRead = pri, true
	return nil
}

func taskPriority(pid int) (int, error) {
	var buf [TaskInfoSize]byte
	n, _, e := unix.Syscall6(unix.SYS_PROC_INFO, procInfoCallPidinfo, uintptr(pid), procPidTaskInfo, 0,
		uintptr(unsafe.Pointer(&buf[0])), TaskInfoSize)
	if e != 0 {
		return 0, fmt.Errorf("proc_pidinfo(%d, PROC_PIDTASKINFO): %w", pid, e)
	}
	return ParseTaskPriority(buf[:n])
}
