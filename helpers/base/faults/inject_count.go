package faults

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/classproof/classproof/helpers/base/files"
)

// Probe, injected as the run's fault, changes nothing: every class call of a launcher process
// (each call of Syscalls, in every ABI) goes on as made and is counted, by call and by Spawner. A
// kill matrix runs its reference so, and then injects a fault only where the probe saw its call.
const Probe = "probe"

// MaxLoggedCalls bounds the lines a process writes to the injection log; past it, calls are
// counted only.
const MaxLoggedCalls = 1000

// countSuffix names a process's count beside the log: LOG.count.PID.
const countSuffix = ".count."

// InjectedCount is the number of calls of the injected fault the run's processes answered, from
// the counts they wrote beside log; found says whether any process wrote one (none: no launcher
// instance closed, and the run cannot tell whether the fault fired). A count that cannot be read
// is an error: read as 0, it would call a fault that fired "never fired".
func InjectedCount(log string) (n int64, found bool, err error) {
	counts := InjectedCounts(log)
	for _, c := range counts {
		b, err := files.ReadClaim(c, 64)
		if err != nil {
			return 0, true, fmt.Errorf("the injected fault's count %s: %w", c, err)
		}
		v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil || v < 0 {
			return 0, true, fmt.Errorf("the injected fault's count %s: %q is not a count", c, b)
		}
		n += v
	}
	return n, len(counts) > 0, nil
}

// InjectedCounts are the files InjectedCount reads, for a run to remove stale ones first.
func InjectedCounts(log string) []string {
	counts, _ := filepath.Glob(log + countSuffix + "*")
	return counts
}
