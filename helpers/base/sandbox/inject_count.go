package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/classproof/classproof/helpers/base/files"
)

// MaxLoggedCalls bounds the lines a process writes to the injection log; past it, calls are
// counted only.
const MaxLoggedCalls = 1000

var (
	answered atomic.Int64 // calls of the injected fault this process answered, in any ABI
	logged   atomic.Int64 // calls it logged
	countMu  sync.Mutex
)

// countSuffix names a process's count beside the log: LOG.count.PID.
const countSuffix = ".count."

// writeCount records this process's count of answered calls beside the log (each time one of its
// injectors closes, so the last write holds them all). The log is the kit's file, in the run's out
// folder, which launcher processes cannot write.
func writeCount(log string) {
	if log == "" {
		return
	}
	countMu.Lock() // one write at a time, each of the count as it is then: the last is the largest
	defer countMu.Unlock()
	_ = files.WriteFile(fmt.Sprintf("%s%s%d", log, countSuffix, os.Getpid()), []byte(strconv.FormatInt(answered.Load(), 10)+"\n"), 0o644)
}

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
