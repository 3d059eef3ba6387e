package proc

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Lookup asks the kernel for one process (sysctl kern.proc.pid, XNU bsd/kern/kern_sysctl.c
// sysctl_prochandle); ok is false when no process has that pid. One syscall, no ps.
func Lookup(pid int) (Info, bool) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	// A pid with no process answers with zero bytes, which x/sys reports as EIO.
	if err != nil || k == nil || int(k.Proc.P_pid) != pid {
		return Info{}, false
	}
	return fromKinfo(k).info(), true
}

// Table lists every process in one sysctl (kern.proc.all).
func Table() (map[int]Info, error) {
	ks, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil, err
	}
	all := make(map[int]Info, len(ks))
	for i := range ks {
		in := fromKinfo(&ks[i]).info()
		all[in.Pid] = in
	}
	return all, nil
}

func fromKinfo(k *unix.KinfoProc) kinfo {
	return kinfo{Pid: k.Proc.P_pid, Ppid: k.Eproc.Ppid, Pgid: k.Eproc.Pgid, Stat: k.Proc.P_stat,
		StartSec: int64(k.Proc.P_starttime.Sec), StartUsec: int32(k.Proc.P_starttime.Usec)}
}

// Args is a process's argument vector (sysctl kern.procargs2), for telling which session a process
// belongs to; an error when the process is gone or not ours to read.
func Args(pid int) ([]string, error) {
	b, err := unix.SysctlRaw("kern.procargs2", pid)
	if err != nil {
		return nil, err
	}
	return parseProcArgs(b)
}

// stateOf is the process's p_stat as the kernel keeps it (XNU bsd/sys/proc.h: 1 idle, 2 running,
// 3 sleeping, 4 stopped, 5 zombie).
func stateOf(pid int) string {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return "state unknown"
	}
	return fmt.Sprintf("p_stat %d", k.Proc.P_stat)
}

// runnable says whether the process waits only for a CPU (p_stat SRUN).
func runnable(pid int) bool {
	in, ok := Lookup(pid)
	return ok && in.Runnable
}
