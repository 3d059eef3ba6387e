package proctable

import (
	"encoding/binary"
	"fmt"
)

// macOS's kernel structs as bytes. The decoders are plain Go with no build tag, so that their
// offsets are tested here on byte images laid out from the headers (darwin_layout_test.go), and
// on a Mac against x/sys's own struct (darwin_layout_darwin_test.go). Both macOS architectures
// (arm64, x86_64) are little-endian LP64 and lay these structs out alike (x/sys
// ztypes_darwin_arm64.go and ztypes_darwin_amd64.go define KinfoProc field for field the same).

// struct kinfo_proc (XNU bsd/sys/sysctl.h) is struct extern_proc (bsd/sys/proc.h) then struct
// eproc (bsd/sys/sysctl.h). Offsets in bytes, from the start of struct kinfo_proc:
const (
	kinfoSize        = 648 // sizeof(struct kinfo_proc); x/sys SizeofKinfoProc = 0x288
	kinfoStartSec    = 0   // kp_proc.p_un.__p_starttime.tv_sec: int64 (struct timeval, LP64)
	kinfoStartUsec   = 8   // kp_proc.p_un.__p_starttime.tv_usec: int32 (__darwin_suseconds_t)
	kinfoFlag        = 32  // kp_proc.p_flag: int32, after p_vmspace and p_sigacts (8 each)
	kinfoStat        = 36  // kp_proc.p_stat: char, after p_vmspace, p_sigacts (8 each), p_flag
	kinfoPid         = 40  // kp_proc.p_pid: int32, aligned after p_stat
	kinfoEprocOffset = 296 // sizeof(struct extern_proc)
	// kp_eproc.e_ppid: int32, after e_paddr and e_sess (8 each), e_pcred (104), e_ucred (76),
	// 4 bytes of padding and e_vm (64); e_pgid follows it.
	kinfoPpid     = kinfoEprocOffset + 264
	kinfoPgid     = kinfoPpid + 4
	kinfoFieldEnd = kinfoPgid + 4
)

// Every offset lies inside the struct: a negative constant does not convert to uint.
const _ = uint(kinfoSize - kinfoFieldEnd)

// decodeKinfo reads the fields the kit uses from one struct kinfo_proc.
func decodeKinfo(b []byte) (kinfo, error) {
	if len(b) != kinfoSize {
		return kinfo{}, fmt.Errorf("sysctl kern.proc gave %d bytes, expected %d (struct kinfo_proc)", len(b), kinfoSize)
	}
	le := binary.LittleEndian
	return kinfo{
		Pid:       int32(le.Uint32(b[kinfoPid:])),
		Ppid:      int32(le.Uint32(b[kinfoPpid:])),
		Pgid:      int32(le.Uint32(b[kinfoPgid:])),
		Stat:      int8(b[kinfoStat]),
		Flag:      int32(le.Uint32(b[kinfoFlag:])),
		StartSec:  int64(le.Uint64(b[kinfoStartSec:])),
		StartUsec: int32(le.Uint32(b[kinfoStartUsec:])),
	}, nil
}

// pWExit is P_WEXIT in kp_proc.p_flag (XNU bsd/sys/proc.h, "Working on exiting"): the kernel
// sets it for a process whose exit has begun (bsd/kern/kern_sysctl.c fill_user64_externproc:
// P_LEXIT, set in exit1_internal, bsd/kern/kern_exit.c). ps shows it as E (adv_cmds ps/print.c
// state).
const pWExit = 0x2000

// exiting says the process is on its way out (P_WEXIT) and not yet a zombie. Its class proves
// nothing: exit1_internal sets TASK_POLICY_TERMINATED before P_LEXIT, which clears darwinbg and
// raises the task (osfmk/kern/task_policy.c, "Shoot down the throttles that slow down exit"), so
// a darwinbg process being killed reads raised.
func (k kinfo) exiting() bool { return k.Flag&pWExit != 0 }

// decodeKinfos reads what sysctl kern.proc.all gave: whole structs, one after another.
func decodeKinfos(b []byte) ([]kinfo, error) {
	if len(b)%kinfoSize != 0 {
		return nil, fmt.Errorf("sysctl kern.proc.all gave %d bytes, not a whole number of %d-byte struct kinfo_proc", len(b), kinfoSize)
	}
	out := make([]kinfo, 0, len(b)/kinfoSize)
	for i := 0; i < len(b); i += kinfoSize {
		k, err := decodeKinfo(b[i : i+kinfoSize])
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, nil
}

// TaskInfo is the part of XNU's struct proc_taskinfo (bsd/sys/proc_info.h) the kit reads, as
// fill_taskprocinfo (osfmk/kern/bsd_kern.c) fills it for proc_pidinfo(PROC_PIDTASKINFO).
type TaskInfo struct {
	// Threads is pti_threadnum, task->thread_count.
	Threads int32
	// Running is pti_numrunning: the task's threads whose state has TH_RUN, running or waiting
	// on a run queue for a CPU; a thread blocked on anything (a read, a lock, throttled I/O) is
	// not counted.
	Running int32
	// Priority is pti_priority, task->priority: the task's base priority, 4 (MAXPRI_THROTTLE)
	// under PRIO_DARWIN_BG.
	Priority int32
}

// struct proc_taskinfo: six uint64 (pti_virtual_size .. pti_threads_system), then twelve int32
// (pti_policy, pti_faults, pti_pageins, pti_cow_faults, pti_messages_sent,
// pti_messages_received, pti_syscalls_mach, pti_syscalls_unix, pti_csw, pti_threadnum,
// pti_numrunning, pti_priority). Offsets in bytes:
const (
	TaskInfoSize       = 6*8 + 12*4 // 96
	taskInfoThreadNum  = 6*8 + 9*4  // 84
	taskInfoNumRunning = 6*8 + 10*4 // 88
	taskInfoPriority   = 6*8 + 11*4 // 92
)

// ParseTaskInfo reads the bytes proc_pidinfo(PROC_PIDTASKINFO) filled.
func ParseTaskInfo(b []byte) (TaskInfo, error) {
	if len(b) != TaskInfoSize {
		return TaskInfo{}, fmt.Errorf("proc_pidinfo(PROC_PIDTASKINFO) gave %d bytes, expected %d (struct proc_taskinfo)", len(b), TaskInfoSize)
	}
	le := binary.LittleEndian
	return TaskInfo{
		Threads:  int32(le.Uint32(b[taskInfoThreadNum:])),
		Running:  int32(le.Uint32(b[taskInfoNumRunning:])),
		Priority: int32(le.Uint32(b[taskInfoPriority:])),
	}, nil
}

// describe is what a message says the kit read.
func (t TaskInfo) describe() string {
	return fmt.Sprintf("%d of %d threads runnable (proc_pidinfo PROC_PIDTASKINFO pti_numrunning)", t.Running, t.Threads)
}

// starved is what a message says when a thread of the task waits on a run queue; "" when none
// does (a thread waiting on the disk is read apart: waitingOnDisk). Never p_stat: XNU leaves every live, unstopped process at SRUN (see stateOf), so a test
// of p_stat would call a hung harness starved and wait on it StarvedFactor times its timeout.
func (t TaskInfo) starved(pid int) string {
	if t.Running <= 0 {
		return ""
	}
	return fmt.Sprintf("pid %d: %s", pid, t.describe())
}

// struct proc_threadinfo (bsd/sys/proc_info.h), as proc_pidinfo(PROC_PIDTHREADINFO) fills it:
// pth_user_time and pth_system_time (uint64), eight int32 (pth_cpu_usage, pth_policy,
// pth_run_state, pth_flags, pth_sleep_time, pth_curpri, pth_priority, pth_maxpriority), then
// pth_name[64]. Offsets in bytes:
const (
	ThreadInfoSize     = 2*8 + 8*4 + 64 // 112
	threadInfoRunState = 2*8 + 2*4      // 24
	// pth_priority: the thread's base_pri (XNU osfmk/kern/bsd_kern.c fill_taskthreadinfo:
	// ptinfo->pth_priority = thact->base_pri), where pth_curpri is its sched_pri of the moment.
	threadInfoBasePri = 2*8 + 6*4 // 40
	// thStateUninterruptible is TH_STATE_UNINTERRUPTIBLE (osfmk/mach/thread_info.h): a thread in
	// an uninterruptible wait. A darwinbg thread held back by I/O throttling waits so:
	// throttle_lowpri_io (bsd/vfs/vfs_subr.c) sleeps in assert_wait(..., THREAD_UNINT).
	thStateUninterruptible = 4
)

// parseThreadRunState reads pth_run_state from the bytes proc_pidinfo(PROC_PIDTHREADINFO) filled.
func parseThreadRunState(b []byte) (int32, error) {
	if len(b) != ThreadInfoSize {
		return 0, fmt.Errorf("proc_pidinfo(PROC_PIDTHREADINFO) gave %d bytes, expected %d (struct proc_threadinfo)", len(b), ThreadInfoSize)
	}
	return int32(binary.LittleEndian.Uint32(b[threadInfoRunState:])), nil
}

// ThreadInfo is what the kit reads of one thread of a task.
type ThreadInfo struct {
	Handle   uint64 // PROC_PIDLISTTHREADS's handle (the thread's cthread_self), a name in receipts
	RunState int32
	BasePri  int32
}

// ParseThreadInfo reads the bytes proc_pidinfo(PROC_PIDTHREADINFO) filled.
func ParseThreadInfo(handle uint64, b []byte) (ThreadInfo, error) {
	st, err := parseThreadRunState(b)
	if err != nil {
		return ThreadInfo{}, err
	}
	return ThreadInfo{Handle: handle, RunState: st, BasePri: int32(binary.LittleEndian.Uint32(b[threadInfoBasePri:]))}, nil
}

// parseThreadList reads proc_pidinfo(PROC_PIDLISTTHREADS): one uint64 thread handle each.
func parseThreadList(b []byte) []uint64 {
	out := make([]uint64, 0, len(b)/8)
	for i := 0; i+8 <= len(b); i += 8 {
		out = append(out, binary.LittleEndian.Uint64(b[i:]))
	}
	return out
}

// waitingOnDisk is what a message says of a task none of whose threads is runnable but one of
// which waits uninterruptibly (the disk, throttled I/O); "" when none does.
func waitingOnDisk(pid int, states map[uint64]int32) string {
	for tid, st := range states {
		if st == thStateUninterruptible {
			return fmt.Sprintf("pid %d thread %#x: in an uninterruptible wait (proc_pidinfo PROC_PIDTHREADINFO pth_run_state %d: the disk, or throttled I/O)", pid, tid, st)
		}
	}
	return ""
}
