package proc

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/classproof/classproof/helpers/base/cgroup"
	"github.com/classproof/classproof/helpers/base/proctable"
)

// KillAll sends SIGKILL to every tracked group and pid, newest first (harnesses before the
// daemon that started them), and waits up to timeout for each to be gone. It returns an error
// naming every process still alive after that. A tracked pid that now belongs to another
// process is neither signalled nor waited for.
func (s *Set) KillAll(timeout time.Duration) error {
	s.trackDescendants()
	es, refused := untied(s.Entries(), s.token, s.scope())
	for i := len(es) - 1; i >= 0; i-- {
		kill(es[i])
	}
	start := time.Now()
	deadline, starvedStop := start.Add(timeout), start.Add(proctable.StarvedFactor*timeout)
	var left []string
	for _, e := range es {
		// SIGKILL again on every look: one that a misread skipped, or a group member that forked
		// just then, is not left to outlive the cleanup. live() compares the start time, so the
		// signal never reaches a process that took the pid since. A process that has SIGKILL
		// cannot refuse to die; under a saturating load its exit can still wait its turn (a
		// background process starved of CPU, the disk, the kernel's exit path under heavy fork
		// churn: all seen in the soak). So it is waited for up to proctable.StarvedFactor times the
		// timeout, and only one still there then is an error.
		outlived := false
		var unread error
		// One the kit cannot read is waited for too: it is not known to have ended.
		for live, err := e.state(); live || err != nil; live, err = e.state() {
			if unread = err; time.Now().After(starvedStop) {
				outlived = true
				break
			}
			kill(e)
			time.Sleep(5 * time.Millisecond)
		}
		if !e.Owned {
			reap(e, deadline)
		}
		// Only a wait that ran out is an error: a second look right after the loop can catch a
		// dying multi-threaded process in an in-between state and call it alive.
		switch {
		case outlived && unread != nil:
			left = append(left, fmt.Sprintf("%s pid %d (the kit cannot tell whether it ended: %v)", e.Role, e.Pid, unread))
		case outlived:
			left = append(left, fmt.Sprintf("%s pid %d (%s)", e.Role, e.Pid, proctable.DescribeState(e.Pid)))
		}
	}
	var errs []error
	if err := reapOrphans(); err != nil {
		errs = append(errs, err)
	}
	s.mu.Lock()
	errs = append(errs, s.unread...)
	s.unread = nil
	s.mu.Unlock()
	if len(left) > 0 {
		errs = append(errs, fmt.Errorf("still alive %v after SIGKILL: %s", proctable.StarvedFactor*timeout, strings.Join(left, ", ")))
	}
	if len(refused) > 0 {
		errs = append(errs, fmt.Errorf("pids the launcher reported that are not of this run, left alone: %s", strings.Join(refused, "; ")))
	}
	return errors.Join(append(errs, s.closeCgroup())...)
}

func kill(e Entry) {
	if e.Pid <= 1 || !e.live() {
		return // gone, or the pid is someone else's now; pid 1 and below are never signalled
	}
	if group(e) {
		_ = unix.Kill(-e.Pid, unix.SIGKILL)
	}
	_ = unix.Kill(e.Pid, unix.SIGKILL)
}

// Signal sends sig to pid only while it is still the process that started at start (a report's
// claim, read back later) and the kit may signal it (Tied: never a stranger, the kit, its
// ancestors or a sibling test process); else an error saying why, and nothing is sent.
func (s *Set) Signal(role string, pid int, start uint64, sig unix.Signal) error {
	if !(Entry{Pid: pid, Start: start}).live() {
		return fmt.Errorf("%s pid %d: not signalled: no live process with that pid started at %d (gone, or the pid is another process's now)", role, pid, start)
	}
	if ok, why := tie(s.token, s.scope())(pid); !ok {
		return fmt.Errorf("%s pid %d: not signalled: %s", role, pid, why)
	}
	return unix.Kill(pid, sig)
}

// untied splits entries into those the kit may signal and a line for each it may not (see
// Tied): a process the kit started and waits for itself is always its own.
func untied(es []Entry, token string, scope *cgroup.Cgroup) (keep []Entry, refused []string) {
	tied := tie(token, scope)
	for _, e := range es {
		if !e.Owned && e.live() {
			if ok, why := tied(e.Pid); !ok {
				// One that exited while it was being read (a launcher's short-lived helper) has
				// nothing left to signal: only a live process that cannot be tied is refused.
				if e.live() {
					refused = append(refused, fmt.Sprintf("%s pid %d (%s): not signalled: %s", e.Role, e.Pid, e.Exe, why))
				}
				continue
			}
		}
		keep = append(keep, e)
	}
	return keep, refused
}

// reap collects a dead process of ours once it has been reparented to us (see BecomeSubreaper).
// Its parent may still be exiting, thread by thread, so wait while the parent is dying; a parent
// that lives on (init, a host the kit did not start) reaps it itself.
func reap(e Entry, deadline time.Time) {
	me := unix.Getpid()
	for {
		in, ok, err := e.ours()
		if !ok || err != nil {
			return // reaped, or the pid is someone else's now; or unread: KillAll waited and said so
		}
		if in.Zombie && in.Ppid == me {
			var ws unix.WaitStatus
			if r, _ := unix.Wait4(e.Pid, &ws, unix.WNOHANG, nil); r == e.Pid || time.Now().Before(deadline) {
				continue
			}
			return
		}
		if alive, err := proctable.Alive(in.Ppid); (in.Ppid != me && (alive || err != nil)) || time.Now().After(deadline) {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}
