package launcher

import (
	"maps"
	"os"
	"slices"
	"time"

	"golang.org/x/sys/unix"

	"github.com/classproof/classproof/helpers/base/proc"
	"github.com/classproof/classproof/helpers/base/proctable"
)

// candidates are the processes that may be this instance's: its cgroup's members, or, without
// one, what descends from its daemon and host; anywhere in the table, what is in a process group
// it started (a client command's leftovers) or a session one of its processes made (setsid: on
// macOS an orphan goes to launchd, not to the kit); and what descends from the suite process (a
// subreaper: what the launcher double-forks comes back to it) and runs the harness, whatever its
// report path and environment, unless another live instance of this process's handed it out;
// without a subreaper (macOS), what runs the harness among launchd's children (strays).
func (l *Instance) candidates(im proctable.Image, deadline time.Time) (pids []int, uncertain map[int]bool, err error) {
	if cg := l.set.Cgroup(); cg != nil {
		pids, err = cg.Members()
		return pids, nil, err
	}
	table, err := proctable.Table() // read once: this runs at every observation
	if err != nil {
		return nil, nil, err
	}
	mine := proctable.DescendantsIn(table, l.liveRoots()...)
	below := proctable.DescendantsIn(table, os.Getpid())
	seen, isBelow := set(mine), set(below)
	uncertain = map[int]bool{}
	add := func(pid int) {
		mine, seen[pid] = append(mine, pid), true
		uncertain[pid] = !isBelow[pid] // a pid reused since may be a stranger's
	}
	groups, sessions := l.groups(table, mine)
	for pid, in := range table {
		if !seen[pid] && (groups[in.Pgid] || sessions[in.Sid]) {
			add(pid)
		}
	}
	kit := kitProcesses(table, proc.KinTop(), below)
	theirs, sibling := live.others(l).in(table, deadline), siblingFolders(table, kit)
	for _, pid := range strays(table, below, proc.Subreaper) {
		// The run's other processes are never this one's; nor is one that ended, or is on its
		// way out (macOS: P_WEXIT).
		if seen[pid] || kit[pid] || table[pid].Zombie {
			continue
		}
		// Whose it is is asked of what runs the harness only: it may wait on one in exec.
		if runs, err := im.RunBy(pid); (runs || err != nil && mayRun(pid)) && !theirs(pid) &&
			(isBelow[pid] || !sibling(reportOf(readArgs(pid, deadline)))) {
			add(pid) // Account names it, or says it cannot tell
		}
	}
	return mine, uncertain, nil
}

// mayRun says pid runs, or the kit cannot tell that it does not.
func mayRun(pid int) bool {
	alive, err := proctable.Alive(pid)
	return alive || err != nil
}

// readArgs is pid's arguments, nil when they cannot be read (which no folder of another process's
// is: Account then says it cannot tell).
func readArgs(pid int, deadline time.Time) []string {
	args, _ := proctable.ArgsAfterExec(pid, execWait, deadline)
	return args
}

// set is pids as a set.
func set(pids []int) map[int]bool {
	s := make(map[int]bool, len(pids))
	for _, pid := range pids {
		s[pid] = true
	}
	return s
}

// strays are where a harness that left its launcher's tree is: below the suite process, the
// subreaper of what its specs start; where there is none (macOS), an orphan goes to launchd (XNU
// bsd/kern/kern_exit.c, proc_reparentlocked(q, initproc, ...)) and what it started stays below
// it: a harness below an orphaned middle process (setsid, then its parent exits) is launchd's
// grandchild, so every process in the table is one.
func strays(table map[int]proctable.Info, below []int, subreaper bool) []int {
	if subreaper {
		return below
	}
	return slices.Concat(below, slices.Collect(maps.Keys(table)))
}

// groups are the process groups the kit started this instance's processes in, and the sessions
// its processes made, kept from one observation to the next: a session outlives its leader.
func (l *Instance) groups(table map[int]proctable.Info, mine []int) (groups, sessions map[int]bool) {
	groups = map[int]bool{}
	for _, e := range l.set.Entries() {
		if e.Owned { // started by the kit, in a group of its own (launcher.start)
			groups[e.Pid] = true
		}
	}
	kit, _ := unix.Getsid(0)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sessions == nil {
		l.sessions = map[int]bool{}
	}
	for _, pid := range mine {
		if sid := table[pid].Sid; sid > 1 && sid != kit {
			l.sessions[sid] = true
		}
	}
	return groups, maps.Clone(l.sessions)
}
