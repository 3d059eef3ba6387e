package actas

import (
	"fmt"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// classCall makes one class call (SchedPolicy, IOPrio, Nice) with args, in Child's process: the
// kernel judges it by the caller's real and effective uid, capabilities and RLIMIT_NICE, which
// only a process of the user's own holds.
func classCall(op string, args []string) error {
	n := make([]int, len(args))
	for i, a := range args {
		v, err := strconv.Atoi(a)
		if err != nil {
			return fmt.Errorf("argument %q: not a number", a)
		}
		n[i] = v
	}
	switch {
	case op == SchedPolicy && len(n) == 2:
		return unix.SchedSetAttr(n[0], &unix.SchedAttr{Policy: uint32(n[1])}, 0)
	case op == IOPrio && len(n) == 3:
		if _, _, e := unix.Syscall(unix.SYS_IOPRIO_SET, uintptr(n[0]), uintptr(n[1]), uintptr(n[2])); e != 0 {
			return e
		}
		return nil
	case op == Nice && len(n) == 3:
		return unix.Setpriority(n[0], n[1], n[2])
	}
	return fmt.Errorf("%d arguments, expected TID POLICY (%s) or WHICH WHO VALUE (%s, %s)", len(n), SchedPolicy, IOPrio, Nice)
}

// removeIPC removes one System V IPC object, "shm:ID", "msg:ID" or "sem:ID".
func removeIPC(a string) error {
	kind, n, _ := strings.Cut(a, ":")
	id, err := strconv.Atoi(n)
	if err != nil {
		return fmt.Errorf("not an id")
	}
	var e syscall.Errno
	switch kind {
	case "shm":
		_, err := unix.SysvShmCtl(id, unix.IPC_RMID, nil)
		return err
	case "msg": // msgctl(id, IPC_RMID, NULL)
		_, _, e = unix.Syscall(unix.SYS_MSGCTL, uintptr(id), unix.IPC_RMID, 0)
	case "sem": // semctl(id, 0, IPC_RMID)
		_, _, e = unix.Syscall6(unix.SYS_SEMCTL, uintptr(id), 0, unix.IPC_RMID, 0, 0, 0)
	default:
		return fmt.Errorf("no such kind %q", kind)
	}
	if e != 0 {
		return e
	}
	return nil
}
