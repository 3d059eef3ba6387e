//lint:file-ignore SA1019 proc_info and sysctl trap directly, on purpose and documented at TaskInfoOf: x/sys has no libSystem wrapper for them.

package proctable

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Lookup asks the kernel for one process (sysctl kern.proc.pid, XNU bsd/kern/kern_sysctl.c
// sysctl_prochandle): ErrNoProcess when no process has that pid, another error when the kit
// cannot tell (see ErrNoProcess). One syscall, no ps.
func Lookup(pid int) (Info, error) {
	k, err := readKinfo(pid)
	if err != nil {
		return Info{}, err
	}
	return k.info(), nil
}

func readKinfo(pid int) (kinfo, error) {
	b, err := unix.SysctlRaw("kern.proc.pid", pid)
	switch {
	case err != nil:
		return kinfo{}, fmt.Errorf("pid %d: the kit cannot tell whether it runs: sysctl kern.proc.pid: %w", pid, err)
	case len(b) == 0: // a pid with no process answers with zero bytes
		return kinfo{}, fmt.Errorf("pid %d: %w", pid, ErrNoProcess)
	}
	k, err := decodeKinfo(b)
	if err != nil || int(k.Pid) != pid {
		return kinfo{}, fmt.Errorf("pid %d: the kit cannot tell whether it runs: sysctl kern.proc.pid answered for pid %d (%v)", pid, k.Pid, err)
	}
	return k, nil
}

// Table lists every process in one sysctl (kern.proc.all), read again while the table outgrows
// the answer (readKinfos).
func Table() (map[int]Info, error) {
	all, err := readKinfos(func() ([]byte, error) { return unix.SysctlRaw("kern.proc.all") })
	for pid, in := range all {
		// kinfo_proc holds a pointer to the session, not its id: getsid(2) per process
		// (XNU bsd/kern/kern_prot.c, getsid).
		if sid, err := unix.Getsid(pid); err == nil {
			in.Sid = sid
			all[pid] = in
		}
	}
	return all, err
}

// ChildrenTable is Table: one sysctl reads them all.
func ChildrenTable() (map[int]Info, error) { return Table() }

// Args is a process's argument vector (sysctl kern.procargs2), for telling which session a process
// belongs to; an error when the process is gone or not ours to read. One sysctl into a buffer of
// kern.argmax bytes, the most XNU copies (bsd/kern/kern_sysctl.c sysctl_procargsx caps the
// answer at argmax), so no second call meets arguments changed since a size query.
func Args(pid int) ([]string, error) {
	argmax, err := unix.SysctlUint32("kern.argmax")
	if err != nil {
		return nil, fmt.Errorf("sysctl kern.argmax: %w", err)
	}
	mib := [3]int32{unix.CTL_KERN, kernProcArgs2, int32(pid)}
	buf := make([]byte, argmax)
	size := uintptr(argmax)
	// A direct trap, as TaskInfoOf's (see there): x/sys has no libSystem wrapper for a raw mib.
	if _, _, e := unix.Syscall6(unix.SYS_SYSCTL, uintptr(unsafe.Pointer(&mib[0])), uintptr(len(mib)),
		uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&size)), 0, 0); e != 0 {
		return nil, fmt.Errorf("sysctl kern.procargs2 %d: %w", pid, e)
	}
	return parseProcArgs(buf[:size])
}

// kernProcArgs2 is KERN_PROCARGS2 (XNU bsd/sys/sysctl.h).
const kernProcArgs2 = 49

// Exe is the kernel's path of a process's executable (proc_pidpath: proc_info PROC_PIDPATHINFO,
// XNU bsd/kern/proc_info.c proc_pidpathinfo, vn_getpath of p_textvp), never the exec path in
// kern.procargs2, which the process can rewrite.
func Exe(pid int) (string, error) {
	var buf [procPidPathInfoMaxSize]byte
	if _, _, e := unix.Syscall6(unix.SYS_PROC_INFO, procInfoCallPidinfo, uintptr(pid), procPidPathInfo, 0,
		uintptr(unsafe.Pointer(&buf[0])), procPidPathInfoMaxSize); e != 0 {
		return "", fmt.Errorf("proc_pidpath(%d): %w", pid, e)
	}
	return parsePidPath(buf[:])
}

// proc_info(2) call numbers (XNU bsd/sys/proc_info.h): PROC_INFO_CALL_PIDINFO, and its flavors
// PROC_PIDTASKINFO, PROC_PIDTHREADINFO (arg: a thread handle), PROC_PIDLISTTHREADS,
// PROC_PIDPATHINFO.
const (
	procInfoCallPidinfo = 2
	procPidTaskInfo     = 4
	procPidThreadInfo   = 5
	procPidListThreads  = 6
	// PROC_PIDPATHINFO and PROC_PIDPATHINFO_MAXSIZE (4 * MAXPATHLEN), proc_pidpath's.
	procPidPathInfo        = 11
	procPidPathInfoMaxSize = 4096
)

// TaskInfoOf is proc_pidinfo(pid, PROC_PIDTASKINFO), allowed for a caller of the same uid (XNU
// bsd/kern/proc_info.c proc_pidinfo: CHECK_SAME_USER for this flavor).
//
// It traps to the kernel directly (syscall 336, SYS_PROC_INFO) where libproc's proc_pidinfo
// (XNU libsyscall/wrappers/libproc/libproc.c) is one call of the same __proc_info with the same
// six arguments. x/sys marks direct syscalls on darwin deprecated in favour of libSystem
// wrappers, and it has none for proc_info; Go 1.26's syscall.Syscall6 on darwin still traps
// directly (syscall/asm_darwin_{amd64,arm64}.s). What would break it: Apple changing the
// syscall's number or arguments (private ABI, stable since 10.5), or a macOS that refuses direct
// traps from outside libSystem (as OpenBSD's pinsyscalls does); the error then says so here, and
// the fix is a libSystem trampoline as x/sys writes them (syscall_darwin_libSystem.go).
func TaskInfoOf(pid int) (TaskInfo, error) {
	var buf [TaskInfoSize]byte
	n, _, e := unix.Syscall6(unix.SYS_PROC_INFO, procInfoCallPidinfo, uintptr(pid), procPidTaskInfo, 0,
		uintptr(unsafe.Pointer(&buf[0])), TaskInfoSize)
	if e != 0 {
		return TaskInfo{}, fmt.Errorf("proc_pidinfo(%d, PROC_PIDTASKINFO): %w", pid, e)
	}
	if n > TaskInfoSize {
		n = TaskInfoSize
	}
	return ParseTaskInfo(buf[:n])
}

// stateOf is the process's p_stat as the kernel keeps it (XNU bsd/sys/proc.h: SIDL 1, SRUN 2,
// SSLEEP 3, SSTOP 4, SZOMB 5) and how many of its threads are runnable. p_stat alone says little:
// XNU sets SRUN at fork (bsd/kern/kern_fork.c) and never assigns SSLEEP in bsd/, so every live,
// unstopped process reads SRUN, asleep or not.
func stateOf(pid int) string {
	k, err := readKinfo(pid)
	if err != nil {
		return "state unknown"
	}
	s := fmt.Sprintf("p_stat %d", k.Stat)
	if t, err := TaskInfoOf(pid); err == nil {
		s += ", " + t.describe()
	}
	return s
}

// starved says what was read when any thread of pid is runnable, waiting for a CPU (the task's
// pti_numrunning, never p_stat: see stateOf), or in an uninterruptible wait: a darwinbg thread
// held back by I/O throttling is not TH_RUN, and is waiting on the disk, which StarvedFactor
// promises to wait for. "" when none is, or when it cannot be read.
func starved(pid int) string {
	t, err := TaskInfoOf(pid)
	if err != nil {
		return ""
	}
	if why := t.starved(pid); why != "" {
		return why
	}
	return waitingOnDisk(pid, threadStates(pid, t.Threads))
}

// threadStates reads each thread's pth_run_state; what cannot be read is left out.
func threadStates(pid int, threads int32) map[uint64]int32 {
	all, _ := readThreads(pid, threads)
	states := map[uint64]int32{}
	for _, t := range all {
		states[t.Handle] = t.RunState
	}
	return states
}

// Threads reads every thread of a task (proc_pidinfo PROC_PIDLISTTHREADS, then
// PROC_PIDTHREADINFO per thread, XNU bsd/kern/proc_info.c; osfmk/kern/bsd_kern.c
// fill_taskthreadlist and fill_taskthreadinfo), for the oracle's per-thread class: pth_priority
// is each thread's base priority, which PRIO_DARWIN_BG lowers for every thread of the task and
// PRIO_DARWIN_THREAD for one. A thread that ends between the list and its read is left out.
func Threads(pid int) ([]ThreadInfo, error) {
	t, err := TaskInfoOf(pid)
	if err != nil {
		return nil, err
	}
	return readThreads(pid, t.Threads)
}

func readThreads(pid int, threads int32) ([]ThreadInfo, error) {
	if threads <= 0 {
		return nil, nil
	}
	list := make([]byte, 8*(min(int(threads), MaxThreads)+4)) // a few more, for threads started since
	n, _, e := unix.Syscall6(unix.SYS_PROC_INFO, procInfoCallPidinfo, uintptr(pid), procPidListThreads, 0,
		uintptr(unsafe.Pointer(&list[0])), uintptr(len(list)))
	if e != 0 {
		return nil, fmt.Errorf("proc_pidinfo(%d, PROC_PIDLISTTHREADS): %w", pid, e)
	}
	if int(n) > len(list) {
		n = uintptr(len(list))
	}
	var out []ThreadInfo
	for _, h := range parseThreadList(list[:n]) {
		var buf [ThreadInfoSize]byte
		m, _, e := unix.Syscall6(unix.SYS_PROC_INFO, procInfoCallPidinfo, uintptr(pid), procPidThreadInfo, uintptr(h),
			uintptr(unsafe.Pointer(&buf[0])), ThreadInfoSize)
		if e != 0 || m != ThreadInfoSize {
			continue
		}
		if t, err := ParseThreadInfo(h, buf[:]); err == nil {
			out = append(out, t)
		}
	}
	return out, nil
}

// Identity is a process's arguments and environment, NUL-separated: sysctl kern.procargs2 gives
// both after argc and the executable path, for a process of the same user (XNU
// bsd/kern/kern_sysctl.c sysctl_procargsx); the kernel bounds it by kern.argmax.
func Identity(pid int) ([]byte, error) {
	b, err := unix.SysctlRaw("kern.procargs2", pid)
	if err != nil {
		return nil, err
	}
	if len(b) < 4 {
		return nil, errShortArgs
	}
	if len(b) > MaxIdentity {
		b = b[:MaxIdentity]
	}
	return b[4:], nil
}
