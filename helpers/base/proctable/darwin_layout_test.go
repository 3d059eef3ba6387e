package proctable

import (
	"encoding/binary"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// The darwin decoders are tested on byte images built by the Go compiler from mirrors of the C
// structs, never from the decoders' own offset table: a moved offset reads another field's value.
// The mirrors are x/sys's cgo -godefs output for darwin (ztypes_darwin_arm64.go, the same as
// ztypes_darwin_amd64.go), made from Apple's headers, with pointers as uintptr. Go lays them out
// as C does on any little-endian LP64 machine, as macOS's two architectures are.

type mTimeval struct {
	Sec  int64
	Usec int32
	_    [4]byte
}
type mItimerval struct{ Interval, Value mTimeval }
type mExternProc struct {
	P_starttime mTimeval
	P_vmspace   uintptr
	P_sigacts   uintptr
	P_flag      int32
	P_stat      int8
	P_pid       int32
	P_oppid     int32
	P_dupfd     int32
	User_stack  uintptr
	Exit_thread uintptr
	P_debugger  int32
	Sigwait     int32
	P_estcpu    uint32
	P_cpticks   int32
	P_pctcpu    uint32
	P_wchan     uintptr
	P_wmesg     uintptr
	P_swtime    uint32
	P_slptime   uint32
	P_realtimer mItimerval
	P_rtime     mTimeval
	P_uticks    uint64
	P_sticks    uint64
	P_iticks    uint64
	P_traceflag int32
	P_tracep    uintptr
	P_siglist   int32
	P_textvp    uintptr
	P_holdcnt   int32
	P_sigmask   uint32
	P_sigignore uint32
	P_sigcatch  uint32
	P_priority  uint8
	P_usrpri    uint8
	P_nice      int8
	P_comm      [17]byte
	P_pgrp      uintptr
	P_addr      uintptr
	P_xstat     uint16
	P_acflag    uint16
	P_ru        uintptr
}
type mPcred struct {
	Pc_lock  [72]int8
	Pc_ucred uintptr
	P_ruid   uint32
	P_svuid  uint32
	P_rgid   uint32
	P_svgid  uint32
	P_refcnt int32
	_        [4]byte
}
type mUcred struct {
	Ref     int32
	Uid     uint32
	Ngroups int16
	Groups  [16]uint32
}
type mVmspace struct {
	Dummy  int32
	Dummy2 uintptr
	Dummy3 [5]int32
	Dummy4 [3]uintptr
}
type mEproc struct {
	Paddr   uintptr
	Sess    uintptr
	Pcred   mPcred
	Ucred   mUcred
	Vm      mVmspace
	Ppid    int32
	Pgid    int32
	Jobc    int16
	Tdev    int32
	Tpgid   int32
	Tsess   uintptr
	Wmesg   [8]byte
	Xsize   int32
	Xrssize int16
	Xccount int16
	Xswrss  int16
	Flag    int32
	Login   [12]byte
	Spare   [4]int32
	_       [4]byte
}
type mKinfoProc struct {
	Proc  mExternProc
	Eproc mEproc
}

// struct proc_taskinfo, XNU bsd/sys/proc_info.h, field for field.
type mProcTaskinfo struct {
	VirtualSize, ResidentSize, TotalUser, TotalSystem, ThreadsUser, ThreadsSystem uint64
	Policy, Faults, Pageins, CowFaults, MessagesSent, MessagesReceived            int32
	SyscallsMach, SyscallsUnix, Csw, Threadnum, Numrunning, Priority              int32
}

// distinct gives every integer in v (fields and array elements, recursively) its own value,
// counting up from next, so that no two fields of an image read alike.
func distinct(v reflect.Value, next *uint64) {
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).Name != "_" {
				distinct(v.Field(i), next)
			}
		}
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			distinct(v.Index(i), next)
		}
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		*next++
		v.SetInt(int64(*next%uint64(1<<(8*v.Type().Size()-1)-1)) + 1)
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		*next++
		v.SetUint(*next%(1<<(8*v.Type().Size()-1)-1) + 1)
	}
}

func image[T any](t testing.TB, v *T) []byte {
	t.Helper()
	var probe uint16 = 1
	if unsafe.Sizeof(uintptr(0)) != 8 || *(*byte)(unsafe.Pointer(&probe)) != 1 {
		t.Skip("the mirrors are laid out as on macOS only on a little-endian 64-bit machine")
	}
	return append([]byte(nil), unsafe.Slice((*byte)(unsafe.Pointer(v)), unsafe.Sizeof(*v))...)
}

// a kinfo_proc image with a distinct value in every field; fields named in set are then set.
func kinfoImage(t testing.TB, start uint64, set func(*mKinfoProc)) (*mKinfoProc, []byte) {
	k := &mKinfoProc{}
	distinct(reflect.ValueOf(k).Elem(), &start)
	if set != nil {
		set(k)
	}
	return k, image(t, k)
}

func TestKinfoMirrorHasTheHeaderSize(t *testing.T) {
	if got := unsafe.Sizeof(mKinfoProc{}); got != kinfoSize {
		t.Errorf("struct kinfo_proc mirror is %d bytes; the decoder expects %d (x/sys SizeofKinfoProc is 0x288)", got, kinfoSize)
	}
	if got := unsafe.Sizeof(mExternProc{}); got != kinfoEprocOffset {
		t.Errorf("struct extern_proc mirror is %d bytes; the decoder puts kp_eproc at %d", got, kinfoEprocOffset)
	}
}

func TestKinfoDecodesEveryFieldItReads(t *testing.T) {
	k, b := kinfoImage(t, 1000, nil)
	got, err := decodeKinfo(b)
	if err != nil {
		t.Fatal(err)
	}
	want := kinfo{Pid: k.Proc.P_pid, Ppid: k.Eproc.Ppid, Pgid: k.Eproc.Pgid, Stat: k.Proc.P_stat, Flag: k.Proc.P_flag,
		StartSec: k.Proc.P_starttime.Sec, StartUsec: k.Proc.P_starttime.Usec}
	if got != want {
		t.Errorf("decoded %+v from an image holding %+v", got, want)
	}
}

// Each field on its own, with its neighbours' values named: a wrong offset says which field it
// read instead.
func TestKinfoReadsNoNeighbour(t *testing.T) {
	k, b := kinfoImage(t, 5000, nil)
	got, err := decodeKinfo(b)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		field      string
		got, want  int64
		neighbours map[string]int64
	}{
		{"p_pid", int64(got.Pid), int64(k.Proc.P_pid), map[string]int64{"p_flag": int64(k.Proc.P_flag), "p_oppid": int64(k.Proc.P_oppid)}},
		{"e_ppid", int64(got.Ppid), int64(k.Eproc.Ppid), map[string]int64{"e_vm last word": int64(k.Eproc.Vm.Dummy4[2]), "e_pgid": int64(k.Eproc.Pgid)}},
		{"e_pgid", int64(got.Pgid), int64(k.Eproc.Pgid), map[string]int64{"e_ppid": int64(k.Eproc.Ppid), "e_jobc": int64(k.Eproc.Jobc)}},
		{"p_stat", int64(got.Stat), int64(k.Proc.P_stat), map[string]int64{"p_flag low byte": int64(int8(k.Proc.P_flag))}},
		{"p_flag", int64(got.Flag), int64(k.Proc.P_flag), map[string]int64{"p_sigacts low word": int64(int32(k.Proc.P_sigacts))}},
		{"p_starttime.tv_usec", int64(got.StartUsec), int64(k.Proc.P_starttime.Usec), map[string]int64{"p_vmspace low word": int64(int32(k.Proc.P_vmspace))}},
	}
	for _, c := range checks {
		if c.got == c.want {
			continue
		}
		read := "another field"
		for n, v := range c.neighbours {
			if v == c.got {
				read = n
			}
		}
		t.Errorf("%s: read %d (%s), the image holds %d", c.field, c.got, read, c.want)
	}
}

func TestKinfoSliceDecodesEachProcess(t *testing.T) {
	var all []byte
	var want []int32
	for i, pid := range []int32{1, 4242, 99999} {
		_, b := kinfoImage(t, uint64(100*i), func(k *mKinfoProc) { k.Proc.P_pid = pid })
		all = append(all, b...)
		want = append(want, pid)
	}
	ks, err := decodeKinfos(all)
	if err != nil || len(ks) != 3 {
		t.Fatalf("got %d processes, err %v", len(ks), err)
	}
	for i, k := range ks {
		if k.Pid != want[i] {
			t.Errorf("process %d: pid %d, want %d", i, k.Pid, want[i])
		}
	}
}

func TestKinfoRefusesWhatIsNotWholeStructs(t *testing.T) {
	_, b := kinfoImage(t, 0, nil)
	if _, err := decodeKinfos(append(b, b[:4]...)); err == nil || !strings.Contains(err.Error(), "not a whole number of 648-byte struct kinfo_proc") {
		t.Errorf("652 bytes accepted as processes: %v", err)
	}
	if _, err := decodeKinfo(b[:600]); err == nil || !strings.Contains(err.Error(), "600 bytes, expected 648") {
		t.Errorf("a short struct accepted: %v", err)
	}
	if ks, err := decodeKinfos(nil); err != nil || len(ks) != 0 {
		t.Errorf("no bytes: %v %v", ks, err)
	}
}

// What the kit makes of the fields: a zombie is p_stat SZOMB, and the start time keeps its
// microseconds, so two processes on one pid never compare equal.
func TestKinfoMeaning(t *testing.T) {
	read := func(stat int8, sec int64, usec int32) Info {
		_, b := kinfoImage(t, 7, func(k *mKinfoProc) {
			k.Proc.P_stat, k.Proc.P_starttime.Sec, k.Proc.P_starttime.Usec = stat, sec, usec
			k.Proc.P_flag = 0x4004 // P_LP64 | P_EXEC: a process that runs
		})
		k, err := decodeKinfo(b)
		if err != nil {
			t.Fatal(err)
		}
		return k.info()
	}
	live := read(2, 1764500000, 123456)
	if live.Zombie || live.Start != 1764500000123456 {
		t.Errorf("a live process (p_stat SRUN) read as %+v", live)
	}
	if z := read(sZomb, 1764500000, 123456); !z.Zombie {
		t.Errorf("p_stat SZOMB read as %+v", z)
	}
	if later := read(2, 1764500000, 123457); later.Start == live.Start {
		t.Error("a later process on the same pid has the same start time")
	}
}

// A process whose exit has begun (P_WEXIT in p_flag; ps shows E) is on its way out while p_stat
// still says SRUN: a darwinbg one reads raised then (exit sets TASK_POLICY_TERMINATED first), and
// the kit reads it as ended, never as a class it runs at (issue 67). Every other flag, alone or
// together, is a process that runs.
func TestKinfoExitingIsOnItsWayOut(t *testing.T) {
	read := func(flag int32) Info {
		_, b := kinfoImage(t, 11, func(k *mKinfoProc) { k.Proc.P_stat, k.Proc.P_flag = 2, flag })
		k, err := decodeKinfo(b)
		if err != nil {
			t.Fatal(err)
		}
		return k.info()
	}
	// p_flag of a killed process as XNU fills it: P_CONTROLT | P_LP64 | P_EXEC | P_WEXIT.
	if in := read(0x2 | 0x4 | 0x4000 | 0x2000); !in.Zombie {
		t.Errorf("p_stat SRUN with P_WEXIT read as %+v: want it on its way out", in)
	}
	if in := read(^int32(0x2000)); in.Zombie {
		t.Errorf("every flag but P_WEXIT read as %+v: want a process that runs", in)
	}
}

func taskImage(t testing.TB, set func(*mProcTaskinfo)) (*mProcTaskinfo, []byte) {
	ti := &mProcTaskinfo{}
	start := uint64(300)
	distinct(reflect.ValueOf(ti).Elem(), &start)
	if set != nil {
		set(ti)
	}
	return ti, image(t, ti)
}

func TestTaskInfoMirrorHasTheHeaderSize(t *testing.T) {
	if got := unsafe.Sizeof(mProcTaskinfo{}); got != TaskInfoSize {
		t.Errorf("struct proc_taskinfo mirror is %d bytes, the decoder expects %d", got, TaskInfoSize)
	}
}

func TestTaskInfoDecodesEveryFieldItReads(t *testing.T) {
	ti, b := taskImage(t, nil)
	got, err := ParseTaskInfo(b)
	if err != nil {
		t.Fatal(err)
	}
	want := TaskInfo{Threads: ti.Threadnum, Running: ti.Numrunning, Priority: ti.Priority}
	if got != want {
		t.Errorf("decoded %+v from an image holding %+v (pti_csw %d, pti_threadnum %d, pti_numrunning %d)",
			got, want, ti.Csw, ti.Threadnum, ti.Numrunning)
	}
}

// The values a background task and a hung one show: base priority 4 under PRIO_DARWIN_BG, and
// no runnable thread for a task blocked on anything.
func TestTaskInfoMeaning(t *testing.T) {
	_, bg := taskImage(t, func(ti *mProcTaskinfo) { ti.Priority, ti.Threadnum, ti.Numrunning = 4, 3, 1 })
	got, err := ParseTaskInfo(bg)
	if err != nil || got.Priority != 4 || got.Running != 1 {
		t.Errorf("a busy background task read as %+v, %v", got, err)
	}
	if s := got.describe(); s != "1 of 3 threads runnable (proc_pidinfo PROC_PIDTASKINFO pti_numrunning)" {
		t.Errorf("described as %q", s)
	}
	_, hung := taskImage(t, func(ti *mProcTaskinfo) { ti.Priority, ti.Threadnum, ti.Numrunning = 31, 5, 0 })
	if got, _ := ParseTaskInfo(hung); got.Running != 0 || got.Priority != 31 {
		t.Errorf("a blocked task read as %+v", got)
	}
}

// A hung harness (every thread blocked) is not starved, whatever p_stat says; a task with a
// thread on a run queue is, and the message says what was read.
func TestTaskInfoDecidesStarvation(t *testing.T) {
	_, hung := taskImage(t, func(ti *mProcTaskinfo) { ti.Threadnum, ti.Numrunning = 4, 0 })
	h, _ := ParseTaskInfo(hung)
	if why := h.starved(77); why != "" {
		t.Errorf("a task with no runnable thread called starved: %q", why)
	}
	_, busy := taskImage(t, func(ti *mProcTaskinfo) { ti.Threadnum, ti.Numrunning = 4, 2 })
	b, _ := ParseTaskInfo(busy)
	if why := b.starved(77); why != "pid 77: 2 of 4 threads runnable (proc_pidinfo PROC_PIDTASKINFO pti_numrunning)" {
		t.Errorf("a task with 2 runnable threads: %q", why)
	}
}

func TestTaskInfoRefusesAWrongSize(t *testing.T) {
	_, b := taskImage(t, nil)
	for _, n := range []int{0, 40, TaskInfoSize - 4, TaskInfoSize + 8} {
		bb := append(append([]byte(nil), b...), make([]byte, 8)...)[:n]
		if _, err := ParseTaskInfo(bb); err == nil || !strings.Contains(err.Error(), "expected 96 (struct proc_taskinfo)") {
			t.Errorf("%d bytes accepted: %v", n, err)
		}
	}
}

// KERN_PROCARGS2 with more words after the arguments (the environment): argc says where to stop.
func TestParseProcArgsStopsAtArgc(t *testing.T) {
	b := binary.LittleEndian.AppendUint32(nil, 2)
	b = append(b, "/bin/sleep\x00\x00\x00sleep\x0030\x00HOME=/var/root\x00SECRET=x\x00"...)
	args, err := parseProcArgs(b)
	if err != nil || strings.Join(args, " ") != "sleep 30" {
		t.Errorf("got %q %v, want [sleep 30] and no environment", args, err)
	}
}

// The table grew between XNU's size query and its copy: sysctl kern.proc.all answers ENOMEM, and
// the read is tried again; a table that cannot be read is an error, never an empty table (which
// would make "nothing started" pass with nothing looked at).
func TestTheProcessTableIsReadAgainWhenItGrew(t *testing.T) {
	var table []byte
	for i, pid := range []int32{1, 4242} {
		_, b := kinfoImage(t, uint64(100*i), func(k *mKinfoProc) { k.Proc.P_pid = pid; k.Proc.P_stat = 2 })
		table = append(table, b...)
	}
	calls := 0
	all, err := readKinfos(func() ([]byte, error) {
		if calls++; calls == 1 {
			return nil, syscall.ENOMEM
		}
		return table, nil
	})
	if err != nil || len(all) != 2 || all[4242].Pid != 4242 || calls != 2 {
		t.Fatalf("after one ENOMEM: %d processes, err %v, %d reads; want both processes from the second read", len(all), err, calls)
	}
	calls = 0
	all, err = readKinfos(func() ([]byte, error) { calls++; return nil, syscall.ENOMEM })
	if err == nil || all != nil || !strings.Contains(err.Error(), "kern.proc.all") || calls != tableTries {
		t.Errorf("a table that never fits: %v processes, err %v after %d reads; want an error after %d", all, err, calls, tableTries)
	}
	if _, err := readKinfos(func() ([]byte, error) { return nil, syscall.EPERM }); err == nil {
		t.Error("a refused read gave no error")
	}
}

// mProcThreadinfo mirrors struct proc_threadinfo (bsd/sys/proc_info.h).
type mProcThreadinfo struct {
	UserTime, SystemTime                                       uint64
	CPUUsage, Policy, RunState, Flags, SleepTime, Curpri, Prio int32
	Maxpriority                                                int32
	Name                                                       [64]byte
}

// A thread held back by I/O throttling (TH_STATE_UNINTERRUPTIBLE) is waiting on the disk, which
// the kit waits for; one asleep on anything else (TH_STATE_WAITING) is not.
func TestThreadRunStateIsReadFromItsImage(t *testing.T) {
	if got := unsafe.Sizeof(mProcThreadinfo{}); got != ThreadInfoSize {
		t.Fatalf("struct proc_threadinfo mirror is %d bytes, the decoder expects %d", got, ThreadInfoSize)
	}
	th := &mProcThreadinfo{}
	start := uint64(500)
	distinct(reflect.ValueOf(th).Elem(), &start)
	th.RunState = thStateUninterruptible
	st, err := parseThreadRunState(image(t, th))
	if err != nil || st != thStateUninterruptible {
		t.Fatalf("pth_run_state read as %d (%v) from an image holding %d (pth_policy %d, pth_flags %d)", st, err, th.RunState, th.Policy, th.Flags)
	}
	if _, err := parseThreadRunState(image(t, th)[:100]); err == nil {
		t.Error("a short proc_threadinfo was read")
	}
	// pth_priority is the thread's base priority, the oracle's per-thread class on macOS.
	ti, err := ParseThreadInfo(9, image(t, th))
	if err != nil || ti.BasePri != th.Prio || ti.RunState != th.RunState || ti.Handle != 9 {
		t.Errorf("thread info %+v (%v) from an image holding pth_priority %d (pth_curpri %d, pth_maxpriority %d)", ti, err, th.Prio, th.Curpri, th.Maxpriority)
	}
	list := parseThreadList([]byte{1, 0, 0, 0, 0, 0, 0, 0, 0xff, 0, 0, 0, 0, 0, 0, 0x10})
	if len(list) != 2 || list[0] != 1 || list[1] != 0x10000000000000ff {
		t.Errorf("thread list %#x", list)
	}
	if why := waitingOnDisk(7, map[uint64]int32{1: 3, 2: thStateUninterruptible}); !strings.Contains(why, "pid 7 thread 0x2: in an uninterruptible wait") {
		t.Errorf("a thread throttled on I/O: %q", why)
	}
	if why := waitingOnDisk(7, map[uint64]int32{1: 3, 2: 3}); why != "" {
		t.Errorf("threads asleep on something else called waiting on the disk: %q", why)
	}
}
