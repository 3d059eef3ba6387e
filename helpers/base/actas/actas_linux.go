package actas

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// dumpableMu orders giving the dumpable flag back against threads that hold a user's real uid:
// while one lives, the flag stays off (a dumpable process would let that user's processes
// attach to the thread, and so to the kit).
var dumpableMu sync.Mutex

func do(uid, gid int, fn func() error) error {
	// The kernel makes a process non-dumpable when a thread's fs ids change
	// (kernel/cred.c, commit_creds), and keeps it so: other root processes without
	// CAP_SYS_PTRACE could no longer read the kit's /proc/PID/exe or environ (another run's
	// token check reads them). This thread's real and effective ids stay root's, so no launcher
	// process may attach to it: the flag is given back once the work is done.
	dumpable, _ := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
	err := onThread(func() error { return become(uid, gid) }, fn)
	if dumpable == 1 {
		dumpableMu.Lock()
		_ = unix.Prctl(unix.PR_SET_DUMPABLE, 1, 0, 0, 0)
		dumpableMu.Unlock()
	}
	return err
}

// doAsProcess gives the dumpable flag back only once its thread, which held the user's real
// uid, has ended; one at a time.
func doAsProcess(uid, gid int, fn func() error) error {
	dumpableMu.Lock()
	defer dumpableMu.Unlock()
	dumpable, _ := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
	var tid int
	err := onThread(func() error { tid = unix.Gettid(); return becomeProcess(uid, gid) }, fn)
	if dumpable == 1 && threadEnded(tid) {
		_ = unix.Prctl(unix.PR_SET_DUMPABLE, 1, 0, 0, 0)
	}
	return err
}

// threadEnded waits up to a second for this process's thread tid to be gone.
func threadEnded(tid int) bool {
	for i := 0; i < 1000; i++ {
		if _, err := os.Stat(fmt.Sprintf("/proc/self/task/%d", tid)); errors.Is(err, os.ErrNotExist) {
			return true
		}
		time.Sleep(time.Millisecond)
	}
	return false
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

// becomeProcess gives the calling thread uid and gid as its real, effective, saved and fs ids;
// the change of uid away from 0 empties its capabilities (capabilities(7)), and capset makes
// sure of it.
func becomeProcess(uid, gid int) error {
	if _, _, e := unix.RawSyscall(unix.SYS_SETGROUPS, 0, 0, 0); e != 0 {
		return fmt.Errorf("acting as uid %d: setgroups: %w", uid, e)
	}
	if _, _, e := unix.RawSyscall(unix.SYS_SETRESGID, uintptr(gid), uintptr(gid), uintptr(gid)); e != 0 {
		return fmt.Errorf("acting as gid %d: setresgid: %w", gid, e)
	}
	if _, _, e := unix.RawSyscall(unix.SYS_SETRESUID, uintptr(uid), uintptr(uid), uintptr(uid)); e != 0 {
		return fmt.Errorf("acting as uid %d: setresuid: %w", uid, e)
	}
	return dropCapabilities(uid)
}

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
