package proc

import (
	"fmt"
	"os"
	"sort"

	"golang.org/x/sys/unix"

	"github.com/classproof/classproof/helpers/base/cgroup"
	"github.com/classproof/classproof/helpers/base/proctable"
)

// KillOrphans kills what is still below this process once its specs and their cleanups are done,
// and names each: a leak. As the subreaper of what the specs started (BecomeSubreaper), it
// inherits what a launcher double-forks, and without a cgroup a harness started with a clean
// environment (no run token) and a report outside the instance's folder is known to no spec's
// cleanup; after the run nothing would end it.
func KillOrphans() ([]string, error) {
	table, err := proctable.Table()
	if err != nil {
		return nil, fmt.Errorf("listing what is left below this process: %w", err)
	}
	var leaks []string
	for _, pid := range proctable.DescendantsIn(table, os.Getpid()) {
		in := table[pid]
		if in.Zombie || proctable.Exiting(pid) {
			continue // dead, or dying of a kill a cleanup sent (a starved process's exit waits its turn)
		}
		leaks = append(leaks, cgroup.Leftover(pid))
		kill(identify(Entry{Role: "left below the suite process", Pid: pid, Start: in.Start}))
	}
	_ = reapOrphans()
	sort.Strings(leaks)
	return leaks, nil
}

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
