package faults

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/classproof/classproof/helpers/base/contract"
)

// Syscalls are the class system calls a fault can be injected into: each made a silent success
// that does nothing (seccomp, SECCOMP_RET_USER_NOTIF answered with 0), one at a time, in every
// process a launcher instance starts. Whatever language the launcher is written in, its class
// step is these calls; a write to /proc/PID/autogroup is a plain write(2) a filter cannot tell
// apart from any other, so it has no fault here.
var Syscalls = map[string]uintptr{
	"sched_setscheduler": unix.SYS_SCHED_SETSCHEDULER,
	"sched_setattr":      unix.SYS_SCHED_SETATTR,
	"ioprio_set":         unix.SYS_IOPRIO_SET,
	"setpriority":        unix.SYS_SETPRIORITY,
}

// Check says whether name (FAULT or FAULT:MODE, Modes) is a fault the kit can inject here.
func Check(name string) error {
	_, _, err := parseFault(name)
	return err
}

func faultError(name string) error {
	names := make([]string, 0, len(Syscalls))
	for n := range Syscalls {
		names = append(names, n)
	}
	sort.Strings(names)
	return fmt.Errorf("fault %q: expected one of %s, alone (silent) or followed by :%s (on linux/amd64 or linux/arm64)", name, strings.Join(names, ", "), strings.Join(Modes[1:], " or :"))
}

// seccomp_data offsets (include/uapi/linux/seccomp.h).
const (
	offNr   = 0
	offArch = 4
)

// notif and notifResp are struct seccomp_notif and seccomp_notif_resp (80 and 24 bytes: the
// sizes SECCOMP_IOCTL_NOTIF_RECV and _SEND encode).
type notif struct {
	id    uint64
	pid   uint32
	flags uint32
	nr    int32
	arch  uint32
	ip    uint64
	args  [6]uint64
}

type notifResp struct {
	id    uint64
	val   int64
	error int32
	flags uint32
}

// Injector is the run's fault (or its probe) for one launcher instance's processes: a
// confine.Fault its Spawner installs on the thread it forks them from, which then answers their
// calls and records that it fired. Fresh per instance, so that Calls are that instance's.
type Injector struct {
	name, log string
	mode      string // parsed from name by Install
	fd        int    // the listener, from Install
	closed    atomic.Bool
	counted   time.Time // when answer last wrote the count (its goroutine's own)
	mu        sync.Mutex
	installed bool             // Install succeeded
	calls     map[string]int64 // the calls answered for this Spawner's processes, by call
}

// ForInstance is an Injector of the fault the run injects (contract.InjectEnv, each call
// recorded in the file contract.InjectLogEnv names) for one launcher instance, to give its
// Spawner (confine.Spawner.InjectFault); nil when the run injects none. The kit reads the
// environment here, once per instance: the Spawner takes what it is given.
func ForInstance() *Injector {
	run := contract.Current()
	if run.Inject == "" {
		return nil
	}
	return &Injector{name: run.Inject, log: run.InjectLog, calls: map[string]int64{}}
}

// Install puts the fault on the calling thread (the Spawner's, which forks every process of a
// launcher instance: seccomp filters are per thread, inherited by fork and kept across exec) and
// answers its calls from a goroutine of its own.
func (in *Injector) Install() error {
	_, mode, err := parseFault(in.name)
	if err != nil {
		return err
	}
	calls := []string{strings.SplitN(in.name, ":", 2)[0]}
	if mode == ModeProbe {
		calls = probeCalls()
	}
	prog := filterFor(calls)
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	fd, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER, uintptr(unsafe.Pointer(&fprog)))
	if e != 0 {
		return fmt.Errorf("injecting fault %s: seccomp with a listener: %w (the kernel needs user notification, Linux 5.0)", in.name, e)
	}
	in.mode, in.fd = mode, int(fd)
	in.mu.Lock()
	in.installed = true
	in.mu.Unlock()
	go in.answer()
	return nil
}

// answer makes each call a success that did nothing, until close; it polls, so that close is
// seen without a call to wake it.
func (in *Injector) answer() {
	defer unix.Close(in.fd)
	for !in.closed.Load() {
		fds := []unix.PollFd{{Fd: int32(in.fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, 200)
		switch {
		case errors.Is(err, unix.EINTR), err == nil && n == 0:
			continue
		case err != nil, fds[0].Revents&unix.POLLNVAL != 0:
			return
		case fds[0].Revents&unix.POLLIN == 0:
			// POLLHUP: no process holds the filter this moment (the Spawner's thread ended).
			time.Sleep(100 * time.Millisecond)
			continue
		}
		var req notif
		if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(in.fd), unix.SECCOMP_IOCTL_NOTIF_RECV, uintptr(unsafe.Pointer(&req))); e != 0 {
			continue // the caller died, or a signal: nothing to answer
		}
		if in.mode == ModeProbe {
			in.probe(&req)
		} else {
			in.take(&req)
		}
		if time.Since(in.counted) > countEvery {
			// Now and then as well as at close: a suite process that dies loses little.
			writeCount(in.log)
			in.counted = time.Now()
		}
	}
}

// take answers one call as the fault says, when it is a launcher process's (callerOf), and logs it.
func (in *Injector) take(req *notif) {
	abi := native(req, in.name)
	c, ours := callerOf(req)
	if !ours {
		// A user's processes, or a pid named from a nested pid namespace: not the kit's to
		// answer; the kernel judges the call with the caller's own rights, as without the fault.
		in.send(notifResp{id: req.id, flags: unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE})
		return
	}
	did := in.apply(req, c)
	// Counted and logged before the answer: whoever sees the call return, or its effect (a
	// test reading the class, then the log; a suite process closing right after), finds it
	// there. Answered first, a slow machine (the rehearsal's emulated VM) showed the effect
	// with the log still empty.
	in.count(strings.SplitN(in.name, ":", 2)[0])
	if abi != "" {
		did += " (through the " + abi + ")"
	}
	in.logCall(fmt.Sprintf("%s pid %d: %s\n", in.name, req.pid, did))
	in.send(notifResp{id: req.id}) // val 0, error 0: "it worked"
}

// countEvery is how often, at most, a listener writes its process's count while it answers.
const countEvery = 200 * time.Millisecond

func (in *Injector) send(resp notifResp) {
	_, _, _ = unix.Syscall(unix.SYS_IOCTL, uintptr(in.fd), unix.SECCOMP_IOCTL_NOTIF_SEND, uintptr(unsafe.Pointer(&resp)))
}

// valid says whether the call req names is still waiting: the caller, whose pid and memory the
// kit just read, has not died and been replaced (SECCOMP_IOCTL_NOTIF_ID_VALID).
func (in *Injector) valid(req *notif) bool {
	id := req.id
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(in.fd), unix.SECCOMP_IOCTL_NOTIF_ID_VALID, uintptr(unsafe.Pointer(&id)))
	return e == 0
}

// logCall records a call answered in the run's injection log, for the first MaxLoggedCalls of
// this process; the count of them all is kept in memory (answered) and carried to the run
// (WriteInjectedCount): a launcher may make a call a million times, and a log grown without bound
// was once read back, capped, as "never fired".
func (in *Injector) logCall(line string) {
	switch n := logged.Add(1); {
	case n <= MaxLoggedCalls:
		in.write(line)
	case n == MaxLoggedCalls+1:
		in.write(fmt.Sprintf("# more calls than %d in process %d: counted, not logged\n", MaxLoggedCalls, os.Getpid()))
	}
}

// write appends a line to the run's injection log: a call answered, or, starting with #, what a
// late fault did later, or that later calls were counted only.
func (in *Injector) write(line string) {
	if in.log == "" {
		return
	}
	f, err := os.OpenFile(in.log, os.O_WRONLY|os.O_APPEND|os.O_CREATE|unix.O_NOFOLLOW, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.WriteString(line)
}

// Close stops the listener (it sees that within a poll) and writes this process's count beside
// the log; a no-op on an Injector never installed.
func (in *Injector) Close() {
	if in != nil && in.isInstalled() {
		in.closed.Store(true)
		writeCount(in.log)
	}
}

func (in *Injector) isInstalled() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.installed
}
