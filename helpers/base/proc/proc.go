// Package proc keeps track of every process a spec causes and makes sure each one dies: the
// daemon, the host, the harness, its tools and the control. It kills process groups where a
// process leads one, pids otherwise, and writes each pid to a ledger file so that a run that was
// interrupted hard can still be swept by the CLI afterwards. It reads processes through
// helpers/base/proctable and contains them through helpers/base/cgroup.
//
// It imports no Ginkgo, no Gomega, no fixtures/ (ci/layers.rules).
package proc

import (
	"fmt"
	"sync"

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
