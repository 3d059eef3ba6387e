// Package proc keeps track of every process a spec causes and makes sure each one dies: the
// daemon, the host, the harness, its tools and the control. It kills process groups where a
// process leads one, pids otherwise, and writes each pid to a ledger file so that a run that was
// interrupted hard can still be swept by the CLI afterwards. It reads processes through
// helpers/base/proctable and contains them through helpers/base/cgroup.
//
// It imports no Ginkgo, no Gomega, no fixtures/ (ci/layers.rules).
package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/classproof/classproof/helpers/base/cgroup"
	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/proctable"
)

// Set is the processes of one spec (or one suite).
type Set struct {
	mu      sync.Mutex
	entries []Entry
	ledger  string
	token   string
	// unread are process-table reads that failed while tracking: what they would have found is
	// not tracked, so KillAll reports them rather than passing a cleanup it could not check.
	unread []error
	// cg is the set's own cgroup (see Contained), made when its first process starts.
	cg *cgroup.Cgroup
}

func (s *Set) failedRead(doing string, err error) {
	s.mu.Lock()
	s.unread = append(s.unread, fmt.Errorf("%s: %w", doing, err))
	s.mu.Unlock()
}

// NewSet returns an empty set writing to the ledger named by $CLASSPROOF_LEDGER, if any, with the
// run's token ($CLASSPROOF_RUN), or a token of its own when there is no run (a library caller).
func NewSet() *Set {
	token := RunToken()
	if token == "" {
		token = NewRunToken()
	}
	return &Set{ledger: contract.Current().Ledger, token: token}
}

// Token is the token the set's processes carry (see contract.TokenEnv): the launcher's environment and the
// harness's --run give it to them.
func (s *Set) Token() string { return s.token }

// Track records pid under role, with the start time it has now. A pid that is gone already is
// recorded without one: it is listed, and never signalled (its pid may be someone else's by then).
func (s *Set) Track(role string, pid int) { s.track(Entry{Role: role, Pid: pid}) }

// TrackStarted records a process that said when it started (the harness reports its own start
// and its tools'): if the pid now belongs to a process with another start time, that process is
// not ours and the entry never touches it.
func (s *Set) TrackStarted(role string, pid int, start uint64) {
	s.track(Entry{Role: role, Pid: pid, Start: start})
}

// TrackOwned records a process the kit started itself and waits for with os/exec.
func (s *Set) TrackOwned(role string, pid int) {
	owned.Store(pid, true)
	s.track(Entry{Role: role, Pid: pid, Owned: true})
}

// owned are the pids this process waits for with os/exec: never reaped behind its back (Wait
// would then fail with ECHILD).
var owned sync.Map

// The cgroup package reaps through this package once a cgroup is empty: only it knows which
// children are its own (os/exec waits for those) and which were handed to it as a subreaper.
// Reap collects the zombies handed to this process as a subreaper that no os/exec Wait will:
// what a cgroup's Close runs once the cgroup is empty (cgroup.Cgroup.Close's reap).
func Reap() { _ = reapOrphans() }

// reapOrphans collects every zombie child of ours that no os/exec Wait will: as a subreaper the kit
// inherits the orphans of everything below it, and nobody else would ever reap them.
func reapOrphans() error {
	all, err := proctable.ChildrenTable()
	if err != nil {
		return fmt.Errorf("reaping orphans: %w", err)
	}
	me := os.Getpid()
	for _, in := range all {
		if _, ok := owned.Load(in.Pid); in.Ppid == me && in.Zombie && !ok {
			var ws unix.WaitStatus
			_, _ = unix.Wait4(in.Pid, &ws, unix.WNOHANG, nil)
		}
	}
	return nil
}

func (s *Set) track(e Entry) {
	if e.Pid <= 0 {
		return
	}
	e = identify(e)
	s.mu.Lock()
	s.entries = append(s.entries, e)
	s.mu.Unlock()
	if s.ledger != "" {
		appendLedger(s.ledger, e)
	}
}

// Entries returns what the set tracks.
func (s *Set) Entries() []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Entry(nil), s.entries...)
}

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

// trackDescendants adds every live descendant of a tracked process that is still ours: a
// harness the launcher started but the spec had not yet heard of (interrupted between the two)
// dies with the rest. One snapshot of the process table serves the whole walk.
func (s *Set) trackDescendants() {
	all, err := s.table()
	if err != nil {
		s.failedRead("finding what the tracked processes started", err)
		return
	}
	roles := map[int]string{}
	var roots []int
	tied := tie(s.token, s.scope())
	for _, e := range s.Entries() {
		if in, ok := all[e.Pid]; ok && e.Start != 0 && in.Start == e.Start && !in.Zombie {
			if ok, _ := tied(e.Pid); !e.Owned && !ok {
				continue // a claim the kill refuses below: what it started is not the set's either
			}
			roles[e.Pid] = e.Role
			roots = append(roots, e.Pid)
		}
	}
	proctable.Walk(all, roots, func(parent int, child proctable.Info) {
		if _, ok := roles[child.Pid]; ok {
			return
		}
		roles[child.Pid] = "descendant of " + roles[parent]
		s.track(Entry{Role: roles[child.Pid], Pid: child.Pid, Start: child.Start})
	})
}

// TrackGroup records every live process in process group pgid (a command the kit ran in a group
// of its own, and whatever it forked and left behind), each with its start time, under role.
func (s *Set) TrackGroup(role string, pgid int) {
	all, err := s.table()
	if err != nil {
		s.failedRead("tracking "+role, err)
		return
	}
	for _, in := range all {
		if in.Pgid == pgid && !in.Zombie {
			s.track(Entry{Role: role, Pid: in.Pid, Start: in.Start})
		}
	}
}

// table is what the set's walks read: with a cgroup, the processes in the set's own (nothing its
// processes start can leave it, and KillAll signals nothing outside it: scope), a few reads where
// Table reads every process on the machine; else Table.
func (s *Set) table() (map[int]proctable.Info, error) {
	cg := s.Cgroup()
	if cg == nil {
		return proctable.Table()
	}
	pids, err := cg.Members()
	if err != nil {
		return nil, err
	}
	all := make(map[int]proctable.Info, len(pids))
	for _, pid := range pids {
		in, err := proctable.Lookup(pid)
		switch {
		case proctable.Gone(err):
		case err != nil:
			return nil, fmt.Errorf("reading the processes of cgroup %s: %w", cg.Path, err)
		default:
			all[pid] = in
		}
	}
	return all, nil
}

// Command prepares cmd to run in a process group of its own that is killed as a whole when its
// context ends, and stops waiting for its output a moment after it exits even if something it
// forked holds the pipe: a timeout then bounds the command and everything it started.
func Command(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.Cancel = func() error { return unix.Kill(-cmd.Process.Pid, unix.SIGKILL) }
	cmd.WaitDelay = time.Second
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
