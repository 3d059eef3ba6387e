// Package proc keeps track of every process a spec causes and makes sure each one dies: the
// daemon, the host, the harness, its tools and the control. It kills process groups where a
// process leads one, pids otherwise, and writes each pid to a ledger file so that a run that was
// interrupted hard can still be swept by the CLI afterwards.
package proc

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	gops "github.com/mitchellh/go-ps"
	"golang.org/x/sys/unix"
)

// LedgerEnv names the file every Set appends its pids to; the CLI sets it for a run.
const LedgerEnv = "CLASSPROOF_LEDGER"

// Entry is one tracked process.
type Entry struct {
	Role string `json:"role"`
	Pid  int    `json:"pid"`
	// Leader is true when the process leads its own group at the time it is tracked: the group
	// is then killed as a whole, which takes the tools it started along.
	Leader bool `json:"leader"`
	// Exe is go-ps's (truncated) executable name, so a sweep does not kill a reused pid.
	Exe string `json:"exe"`
	// Owned is true for a process the kit started with os/exec: its own Wait reaps it.
	Owned bool `json:"-"`
	// Start is the process's start time (Linux: /proc stat field 22; 0 where unknown). Pids and
	// thread ids share one space and wrap (32768 here), so "a process with this pid is alive"
	// is only about ours when the start time matches.
	Start uint64 `json:"start,omitempty"`
}

// alive says whether this entry's process, and not a later one with its pid, is alive.
func (e Entry) alive() bool {
	if !Alive(e.Pid) {
		return false
	}
	return e.Start == 0 || startTime(e.Pid) == e.Start
}

// Set is the processes of one spec (or one suite).
type Set struct {
	mu      sync.Mutex
	entries []Entry
	ledger  string
}

// NewSet returns an empty set writing to the ledger named by $CLASSPROOF_LEDGER, if any.
func NewSet() *Set { return &Set{ledger: os.Getenv(LedgerEnv)} }

// Track records pid under role. A pid that is gone already is recorded all the same: killing it
// later is harmless, and forgetting it is how leaks happen.
func (s *Set) Track(role string, pid int) { s.track(Entry{Role: role, Pid: pid}) }

// TrackOwned records a process the kit started itself and waits for with os/exec.
func (s *Set) TrackOwned(role string, pid int) { s.track(Entry{Role: role, Pid: pid, Owned: true}) }

func (s *Set) track(e Entry) {
	pid := e.Pid
	if pid <= 0 {
		return
	}
	if pgid, err := unix.Getpgid(pid); err == nil && pgid == pid && pgid != unix.Getpgrp() {
		e.Leader = true
	}
	e.Start = startTime(pid)
	if p, err := gops.FindProcess(pid); err == nil && p != nil {
		e.Exe = p.Executable()
	}
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
// naming every process still alive after that.
func (s *Set) KillAll(timeout time.Duration) error {
	s.trackDescendants()
	es := s.Entries()
	for i := len(es) - 1; i >= 0; i-- {
		kill(es[i])
	}
	deadline := time.Now().Add(timeout)
	var left []string
	for _, e := range es {
		for e.alive() && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if !e.Owned {
			reap(e.Pid, deadline)
		}
		if e.alive() {
			left = append(left, fmt.Sprintf("%s pid %d", e.Role, e.Pid))
		}
	}
	if len(left) > 0 {
		return fmt.Errorf("still alive %v after SIGKILL: %s", timeout, strings.Join(left, ", "))
	}
	return nil
}

// trackDescendants adds every live descendant of a tracked process: a harness the launcher
// started but the spec had not yet heard of (interrupted between the two) dies with the rest.
func (s *Set) trackDescendants() {
	roles := map[int]string{}
	var roots []int
	for _, e := range s.Entries() {
		roles[e.Pid] = e.Role
		roots = append(roots, e.Pid)
	}
	walk(roots, func(parent, child int) {
		if _, ok := roles[child]; ok {
			return
		}
		roles[child] = "descendant of " + roles[parent]
		s.track(Entry{Role: roles[child], Pid: child})
	})
}

// Descendants lists the live descendants of the given processes (not the processes themselves).
func Descendants(roots ...int) []int {
	var out []int
	walk(roots, func(_, child int) { out = append(out, child) })
	return out
}

// walk visits every descendant of roots once, parents before children, by pid and ppid.
func walk(roots []int, visit func(parent, child int)) {
	all, err := gops.Processes()
	if err != nil {
		return
	}
	children := map[int][]int{}
	for _, p := range all {
		if !zombie(p.Pid()) {
			children[p.PPid()] = append(children[p.PPid()], p.Pid())
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
			if seen[c] {
				continue
			}
			seen[c] = true
			visit(pid, c)
			queue = append(queue, c)
		}
	}
}

func kill(e Entry) {
	if e.Start != 0 && startTime(e.Pid) != e.Start {
		return // gone, and the pid is someone else's now
	}
	if e.Leader {
		_ = unix.Kill(-e.Pid, unix.SIGKILL)
	}
	_ = unix.Kill(e.Pid, unix.SIGKILL)
}

// reap collects a dead process once it has been reparented to us (see BecomeSubreaper). Its
// parent may still be exiting, thread by thread, so wait while the parent is dying; a parent that
// lives on (init, a host the kit did not start) reaps it itself.
func reap(pid int, deadline time.Time) {
	me := unix.Getpid()
	for {
		var ws unix.WaitStatus
		if r, _ := unix.Wait4(pid, &ws, unix.WNOHANG, nil); r == pid {
			return
		}
		if err := unix.Kill(pid, 0); errors.Is(err, unix.ESRCH) {
			return // someone else reaped it
		}
		pp, err := ParentOf(pid)
		if err != nil || (pp != me && Alive(pp)) || time.Now().After(deadline) {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// Alive says whether pid is a live process; a zombie is dead (it runs nothing, it only waits to
// be reaped by a parent that may not be ours).
func Alive(pid int) bool {
	if err := unix.Kill(pid, 0); errors.Is(err, unix.ESRCH) {
		return false
	}
	return !zombie(pid)
}

// ParentOf returns pid's parent as go-ps reads it.
func ParentOf(pid int) (int, error) {
	p, err := gops.FindProcess(pid)
	if err != nil {
		return 0, err
	}
	if p == nil {
		return 0, fmt.Errorf("pid %d: no such process", pid)
	}
	return p.PPid(), nil
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

func appendLedger(path string, e Entry) {
	b, _ := json.Marshal(e)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.Write(append(b, '\n')) // one small write under O_APPEND: lines from parallel processes do not interleave
}

// Sweep reads a ledger and kills every process in it that is still alive and still runs the
// executable that was tracked. It returns one line per process it had to kill: each is a leak.
func Sweep(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var leaks []string
	seen := map[int]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e Entry
		if line == "" || json.Unmarshal([]byte(line), &e) != nil || seen[e.Pid] {
			continue
		}
		seen[e.Pid] = true
		if !e.alive() {
			continue
		}
		if p, err := gops.FindProcess(e.Pid); err != nil || p == nil || (e.Exe != "" && p.Executable() != e.Exe) {
			continue // the pid was reused by something we did not start
		}
		kill(e)
		leaks = append(leaks, fmt.Sprintf("%s pid %d (%s)", e.Role, e.Pid, e.Exe))
	}
	sort.Strings(leaks)
	return leaks, nil
}
