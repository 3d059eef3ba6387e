// Package proc keeps track of every process a spec causes and makes sure each one dies: the
// daemon, the host, the harness, its tools and the control. It kills process groups where a
// process leads one, pids otherwise, and writes each pid to a ledger file so that a run that was
// interrupted hard can still be swept by the CLI afterwards.
//
// It is the bottom layer but for helpers/contract (the run's environment): it imports no other
// helpers package, no Ginkgo, no Gomega, no fixtures/.
package proc

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	gops "github.com/mitchellh/go-ps"
	"golang.org/x/sys/unix"

	"github.com/classproof/classproof/helpers/contract"
)

// Entry is one tracked process.
type Entry struct {
	Role string `json:"role"`
	Pid  int    `json:"pid"`
	// Leader is true when the process leads its own group at the time it is tracked: the group
	// is then killed as a whole, which takes the tools it started along.
	Leader bool `json:"leader"`
	// Exe is go-ps's (truncated) executable name, for the sweep's report.
	Exe string `json:"exe"`
	// Owned is true for a process the kit started with os/exec: its own Wait reaps it.
	Owned bool `json:"-"`
	// Start is the process's start time (see Info.Start), read when it is tracked or reported by
	// the process itself. Every alive, kill and reap decision compares it: a pid with another
	// start time is someone else's and is never waited for or signalled. 0 means the process was
	// gone before it could be tracked, so nothing is ever done to its pid.
	Start uint64 `json:"start,omitempty"`
}

// ours says whether the process this entry names, and not a later one with its pid, still exists
// (a zombie included: it is ours to reap); live adds that it is not a zombie.
func (e Entry) ours() (Info, bool) {
	if e.Start == 0 {
		return Info{}, false
	}
	in, ok := Lookup(e.Pid)
	return in, ok && in.Start == e.Start
}

func (e Entry) live() bool {
	in, ok := e.ours()
	return ok && !in.Zombie
}

// StarvedFactor bounds how much longer than its timeout the kit waits on a process that is
// runnable but not given a CPU, or waiting for the disk. Background class (SCHED_IDLE, I/O class
// idle) means exactly that under a foreground load that fills every core or the disk; such a
// process is not hung, and failing a spec for it would blame the launcher for keeping its
// promise. A process asleep on anything else (a hang, a stop) gets no more time.
const StarvedFactor = 30

// Starved says whether any of pids, or anything below them, has a thread that is runnable but
// waiting for a CPU (see StarvedFactor), and what the kit read that says so; "" when none has. A
// harness may itself sleep while it waits for the tool it forked, which is the one starved.
func Starved(pids ...int) string {
	for _, pid := range append(pids, Descendants(pids...)...) {
		if why := starved(pid); why != "" {
			return why
		}
	}
	return ""
}

// Set is the processes of one spec (or one suite).
type Set struct {
	mu      sync.Mutex
	entries []Entry
	ledger  string
	token   string
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

// reapOrphans collects every zombie child of ours that no os/exec Wait will: as a subreaper the kit
// inherits the orphans of everything below it, and nobody else would ever reap them.
func reapOrphans() {
	all, err := Table()
	if err != nil {
		return
	}
	me := os.Getpid()
	for _, in := range all {
		if _, ok := owned.Load(in.Pid); in.Ppid == me && in.Zombie && !ok {
			var ws unix.WaitStatus
			_, _ = unix.Wait4(in.Pid, &ws, unix.WNOHANG, nil)
		}
	}
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

// identify fills in the start time, group leadership and name of e's process, as it is now.
func identify(e Entry) Entry {
	in, ok := Lookup(e.Pid)
	switch {
	case !ok:
		e.Start = 0
	case e.Start == 0:
		e.Start = in.Start
	case e.Start != in.Start:
		e.Start = 0 // the process that reported this pid is gone, and a stranger has it
	}
	if e.Start == 0 {
		return e
	}
	if pgid, err := unix.Getpgid(e.Pid); err == nil && pgid == e.Pid && pgid != unix.Getpgrp() {
		e.Leader = true
	}
	if p, err := gops.FindProcess(e.Pid); err == nil && p != nil {
		e.Exe = p.Executable()
	}
	return e
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
	es, refused := untied(s.Entries(), s.token)
	for i := len(es) - 1; i >= 0; i-- {
		kill(es[i])
	}
	start := time.Now()
	deadline, starvedStop := start.Add(timeout), start.Add(StarvedFactor*timeout)
	var left []string
	for _, e := range es {
		// SIGKILL again on every look: one that a misread skipped, or a group member that forked
		// just then, is not left to outlive the cleanup. live() compares the start time, so the
		// signal never reaches a process that took the pid since. A process that has SIGKILL
		// cannot refuse to die; under a saturating load its exit can still wait its turn (a
		// background process starved of CPU, the disk, the kernel's exit path under heavy fork
		// churn: all seen in the soak). So it is waited for up to StarvedFactor times the
		// timeout, and only one still there then is an error.
		outlived := false
		for e.live() {
			if time.Now().After(starvedStop) {
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
		if outlived {
			left = append(left, fmt.Sprintf("%s pid %d (%s)", e.Role, e.Pid, describeState(e.Pid)))
		}
	}
	reapOrphans()
	var errs []error
	if len(left) > 0 {
		errs = append(errs, fmt.Errorf("still alive %v after SIGKILL: %s", StarvedFactor*timeout, strings.Join(left, ", ")))
	}
	if len(refused) > 0 {
		errs = append(errs, fmt.Errorf("pids the launcher reported that are not of this run, left alone: %s", strings.Join(refused, "; ")))
	}
	return errors.Join(errs...)
}

// DescribeAll says what each process is doing, for a message ("none" for no process).
func DescribeAll(pids []int) string {
	if len(pids) == 0 {
		return "none"
	}
	var parts []string
	for _, pid := range pids {
		parts = append(parts, fmt.Sprintf("pid %d (%s)", pid, describeState(pid)))
	}
	return strings.Join(parts, ", ")
}

// describeState says what a process that would not die is doing, for the cleanup's message.
func describeState(pid int) string {
	in, ok := Lookup(pid)
	if !ok {
		return "gone"
	}
	return fmt.Sprintf("%s, parent %d", stateOf(pid), in.Ppid)
}

// trackDescendants adds every live descendant of a tracked process that is still ours: a
// harness the launcher started but the spec had not yet heard of (interrupted between the two)
// dies with the rest. One snapshot of the process table serves the whole walk.
func (s *Set) trackDescendants() {
	all, err := Table()
	if err != nil {
		return
	}
	roles := map[int]string{}
	var roots []int
	for _, e := range s.Entries() {
		if in, ok := all[e.Pid]; ok && e.Start != 0 && in.Start == e.Start && !in.Zombie {
			roles[e.Pid] = e.Role
			roots = append(roots, e.Pid)
		}
	}
	walk(all, roots, func(parent int, child Info) {
		if _, ok := roles[child.Pid]; ok {
			return
		}
		roles[child.Pid] = "descendant of " + roles[parent]
		s.track(Entry{Role: roles[child.Pid], Pid: child.Pid, Start: child.Start})
	})
}

// Descendants lists the live descendants of the given processes (not the processes themselves).
func Descendants(roots ...int) []int {
	all, err := Table()
	if err != nil {
		return nil
	}
	var out []int
	walk(all, roots, func(_ int, child Info) { out = append(out, child.Pid) })
	return out
}

// ErrDeadline is what Until returns when its deadline passed first.
var ErrDeadline = errors.New("deadline passed")

// Until is the kit's one retry loop: it calls check every interval until check says done or
// fails, or the deadline passes (ErrDeadline). No fixed sleep decides anything; each wait is
// bounded.
func Until(deadline time.Time, interval time.Duration, check func() (done bool, err error)) error {
	for {
		done, err := check()
		if done || err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return ErrDeadline
		}
		time.Sleep(interval)
	}
}

// Supervisor is the value of contract.SupervisorEnv for this process.
func Supervisor() string {
	in, _ := Lookup(os.Getpid())
	return fmt.Sprintf("%d %d", os.Getpid(), in.Start)
}

// Watch calls gone once, when the supervisor named by value ("PID START") no longer exists: a
// run whose CLI was killed (kill -9 leaves no chance to forward anything) must not go on alone.
// It polls every interval; a value it cannot read means no supervisor, and it returns at once.
func Watch(value string, interval time.Duration, gone func()) {
	e, ok := parseSupervisor(value)
	if !ok {
		return
	}
	go func() {
		for e.live() {
			time.Sleep(interval)
		}
		gone()
	}()
}

// Exists says whether the process a contract.SupervisorEnv value ("PID START") names is still alive.
func Exists(value string) bool {
	e, ok := parseSupervisor(value)
	return ok && e.live()
}

func parseSupervisor(value string) (Entry, bool) {
	var e Entry
	if _, err := fmt.Sscanf(value, "%d %d", &e.Pid, &e.Start); err != nil || e.Pid <= 0 || e.Start == 0 {
		return Entry{}, false
	}
	return e, true
}

// TrackGroup records every live process in process group pgid (a command the kit ran in a group
// of its own, and whatever it forked and left behind), each with its start time, under role.
func (s *Set) TrackGroup(role string, pgid int) {
	all, err := Table()
	if err != nil {
		return
	}
	for _, in := range all {
		if in.Pgid == pgid && !in.Zombie {
			s.track(Entry{Role: role, Pid: in.Pid, Start: in.Start})
		}
	}
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

// Started lists the live descendants of roots whose arguments mention marker: the processes a
// launcher started for one session (the harness, or a trampoline on its way to it, carries the
// session's report path). A launcher's own helpers (a poll loop's sleep) are not among them.
func Started(marker string, roots ...int) []int {
	var out []int
	for _, pid := range Descendants(roots...) {
		if args, err := Args(pid); err == nil && strings.Contains(strings.Join(args, "\x00"), marker) {
			out = append(out, pid)
		}
	}
	return out
}

// walk visits every live descendant of roots in the table once, parents before children, by pid
// and ppid.
func walk(all map[int]Info, roots []int, visit func(parent int, child Info)) {
	children := map[int][]Info{}
	for _, in := range all {
		if !in.Zombie {
			children[in.Ppid] = append(children[in.Ppid], in)
		}
	}
	seen := map[int]bool{}
	queue := append([]int(nil), roots...)
	for _, r := range roots {
		seen[r] = true
	}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			if seen[c.Pid] {
				continue
			}
			seen[c.Pid] = true
			visit(pid, c)
			queue = append(queue, c.Pid)
		}
	}
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

// untied splits entries into those the kit may signal and a line for each it may not (see
// Tied): a process the kit started and waits for itself is always its own.
func untied(es []Entry, token string) (keep []Entry, refused []string) {
	for _, e := range es {
		if !e.Owned && e.live() {
			if ok, why := Tied(e.Pid, token); !ok {
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
		in, ok := e.ours()
		if !ok {
			return // reaped, or the pid is someone else's now
		}
		if in.Zombie && in.Ppid == me {
			var ws unix.WaitStatus
			if r, _ := unix.Wait4(e.Pid, &ws, unix.WNOHANG, nil); r == e.Pid || time.Now().Before(deadline) {
				continue
			}
			return
		}
		if (in.Ppid != me && Alive(in.Ppid)) || time.Now().After(deadline) {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// Alive says whether pid is a live process; a zombie is dead (it runs nothing, it only waits to
// be reaped by a parent that may not be ours).
func Alive(pid int) bool {
	in, ok := Lookup(pid)
	return ok && !in.Zombie
}

// ParentOf returns pid's parent as the kernel lists it.
func ParentOf(pid int) (int, error) {
	in, ok := Lookup(pid)
	if !ok {
		return 0, fmt.Errorf("pid %d: no such process", pid)
	}
	return in.Ppid, nil
}

// Chain returns pid and its ancestors up to init, matched by pid and ppid only: go-ps truncates
// names, so names are never used to decide anything.
func Chain(pid int) ([]int, error) {
	chain := []int{pid}
	for cur := pid; cur > 1; {
		pp, err := ParentOf(cur)
		if err != nil {
			return chain, err
		}
		chain = append(chain, pp)
		if pp == cur || len(chain) > 256 {
			break
		}
		cur = pp
	}
	return chain, nil
}

// Descends says whether ancestor is pid itself or one of its ancestors.
func Descends(pid, ancestor int) (bool, []int, error) {
	chain, err := Chain(pid)
	for _, p := range chain {
		if p == ancestor {
			return true, chain, nil
		}
	}
	return false, chain, err
}

// Private checks that path is ours alone: not a symlink, owned by this user, and not writable by
// group or others; dir says whether it must be a folder (else a regular file). A shared folder or
// a planted file is where reports could be redirected or a ledger could name a stranger.
func Private(path string, dir bool) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		return fmt.Errorf("%s is a symlink", path)
	case dir && !fi.IsDir(), !dir && !fi.Mode().IsRegular():
		return fmt.Errorf("%s is not a %s", path, map[bool]string{true: "folder", false: "regular file"}[dir])
	case ok && int(st.Uid) != os.Geteuid():
		return fmt.Errorf("%s is owned by uid %d, not by this user (uid %d)", path, st.Uid, os.Geteuid())
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("%s is writable by others (mode %v)", path, fi.Mode().Perm())
	}
	return nil
}

// WriteFile writes data to path through a temp file in the same folder and a rename, so a reader
// never sees half a file and a planted symlink at path is replaced, not written through.
func WriteFile(path string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Record appends pid to the ledger at path as it is now (start time, group, name), for a process
// that no Set of the kit's tracks yet: the harness records itself and its tools this way.
func Record(path, role string, pid int) {
	if path != "" {
		appendLedger(path, identify(Entry{Role: role, Pid: pid}))
	}
}

func appendLedger(path string, e Entry) {
	b, _ := json.Marshal(e)
	// O_NOFOLLOW: a ledger planted as a symlink must not make the kit append to its target.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.Write(append(b, '\n')) // one small write under O_APPEND: lines from parallel processes do not interleave
}

// Sweep reads a ledger and kills every process in it that is still alive, still the process
// that was recorded (same pid, same start time) and tied to this run (see Tied: the launcher's
// processes can append to the ledger, so a line is a claim). It returns one line per process it
// had to kill, each a leak, and one per line it refused, each naming why. A line without a start
// time names a process that was gone when it was recorded; its pid is never signalled.
func Sweep(path, token string) (leaks, refused []string, err error) {
	if err := Private(path, false); errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	} else if err != nil {
		return nil, nil, fmt.Errorf("pid ledger: %w; not swept (a planted ledger could name any process)", err)
	}
	b, err := readBounded(path, maxLedger)
	if err != nil {
		return nil, nil, fmt.Errorf("pid ledger: %w", err)
	}
	type key struct {
		pid   int
		start uint64
	}
	seen := map[key]bool{}
	var live []Entry
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e Entry
		if line == "" {
			continue
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			refused = append(refused, fmt.Sprintf("ledger line %.80q: not an entry: %v", line, err))
			continue
		}
		if seen[key{e.Pid, e.Start}] {
			continue
		}
		seen[key{e.Pid, e.Start}] = true
		if e.live() {
			live = append(live, e)
		}
	}
	// Every decision before any kill: a harness killed first must not leave its tools untied.
	keep, untiedLines := untied(live, token)
	for _, e := range keep {
		kill(e)
		leaks = append(leaks, fmt.Sprintf("%s pid %d (%s)", e.Role, e.Pid, e.Exe))
	}
	refused = append(refused, untiedLines...)
	sort.Strings(leaks)
	return leaks, refused, nil
}

// maxLedger bounds what a sweep reads of a ledger: a run writes a few hundred lines.
const maxLedger = 16 << 20

func readBounded(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err == nil && int64(len(b)) > max {
		err = fmt.Errorf("%s is over %d bytes", path, max)
	}
	return b, err
}

// TryLock takes the lock on path (see Lock) only if no one holds it: ok is false when someone does.
func TryLock(path string) (unlock func(), ok bool, err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, false, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("locking %s: %w", path, err)
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, true, nil
}

// Lock takes an exclusive lock on path (made if missing, never through a symlink), waiting for
// another holder to let go, and returns how to let go of it.
func Lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}
