package actas

import (
	"errors"
	"fmt"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"
)

// lent counts the threads that hold a user's fs ids now, and dumpable is the flag the process had
// before the first of them: the kernel makes a process non-dumpable when a thread's fs ids change
// (kernel/cred.c, commit_creds), and the last of them gives the flag back.
var (
	lentMu   sync.Mutex
	lent     int
	dumpable int
)

func do(uid, gid int, fn func() error) error {
	// Non-dumpable, other root processes without CAP_SYS_PTRACE could no longer read the kit's
	// /proc/PID/exe or environ (another run's token check reads them). The thread's real,
	// effective and saved ids stay root's, so no launcher process may attach to it whatever
	// the flag says (kernel/ptrace.c, __ptrace_may_access): the flag is given back once the
	// last thread's work is done.
	lentMu.Lock()
	if lent == 0 {
		dumpable, _ = unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
	}
	lent++
	lentMu.Unlock()
	defer func() {
		lentMu.Lock()
		if lent--; lent == 0 && dumpable == 1 {
			_ = unix.Prctl(unix.PR_SET_DUMPABLE, 1, 0, 0, 0)
		}
		lentMu.Unlock()
	}()
	return onThread(func() error { return become(uid, gid) }, fn)
}

// onThread runs fn on an OS thread of its own once change has changed that thread's identity.
func onThread(change, fn func() error) error {
	errc := make(chan error, 1)
	go func() {
		var err error
		returned := false
		defer func() {
			if !returned {
				err = errors.New("acting as another user: the work ended without returning (runtime.Goexit)")
			}
			errc <- err
		}()
		// Never unlocked: the runtime ends a thread whose goroutine exits locked, so the changed
		// identity dies with it (and the runtime never clones new threads from a locked one).
		runtime.LockOSThread()
		if unix.Gettid() == unix.Getpid() {
			// But never the main thread: the runtime wedges it instead (runtime/proc.go, mexit:
			// m0 is never ended), and it is the thread group's leader, whose ids
			// /proc/PID/status shows and kill(2) checks: the user's processes could then
			// signal the kit. Held here, it cannot be given to the work, which runs elsewhere.
			err = onThread(change, fn)
			runtime.UnlockOSThread()
			returned = true
			return
		}
		if err = change(); err == nil {
			err = fn()
		}
		returned = true
	}()
	return <-errc
}

// dropCapabilities empties the calling thread's effective, permitted and inheritable sets.
func dropCapabilities(uid int) error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var none [2]unix.CapUserData
	if err := unix.Capset(&hdr, &none[0]); err != nil {
		return fmt.Errorf("acting as uid %d: capset: %w", uid, err)
	}
	return nil
}

// become gives the calling thread uid's and gid's file-system identity and drops its
// capabilities. Each call is the raw per-thread system call (Go's syscall.Setgroups and the like
// change every thread of the process).
func become(uid, gid int) error {
	if _, _, e := unix.RawSyscall(unix.SYS_SETGROUPS, 0, 0, 0); e != 0 {
		return fmt.Errorf("acting as uid %d: setgroups: %w", uid, e)
	}
	// setfsuid and setfsgid return the previous value, never an error: an invalid id (-1) reads
	// the current one back, which says whether the change took.
	unix.Setfsgid(gid)
	unix.Setfsuid(uid)
	if got, _ := unix.SetfsgidRetGid(-1); got != gid {
		return fmt.Errorf("acting as gid %d: setfsgid left fs gid %d", gid, got)
	}
	if got, _ := unix.SetfsuidRetUid(-1); got != uid {
		return fmt.Errorf("acting as uid %d: setfsuid left fs uid %d", uid, got)
	}
	// The fs uid change already dropped CAP_DAC_OVERRIDE and the other file capabilities; the
	// rest (CAP_SYS_PTRACE above all, which lets root read any /proc/PID/exe) go too.
	return dropCapabilities(uid)
}
