package proc

import (
	"fmt"
	"os"
	"sort"

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
