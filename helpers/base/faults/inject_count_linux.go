package faults

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/classproof/classproof/helpers/base/files"
)

// The writing half of the injection count: only Linux injects (seccomp).
var (
	answered atomic.Int64 // calls of the injected fault this process answered, in any ABI
	logged   atomic.Int64 // calls it logged
	countMu  sync.Mutex
)

// writeCount records this process's count of answered calls beside the log (each time one of its
// Injectors closes, so the last write holds them all). The log is the kit's file, in the run's out
// folder, which launcher processes cannot write.
func writeCount(log string) {
	if log == "" {
		return
	}
	countMu.Lock() // one write at a time, each of the count as it is then: the last is the largest
	defer countMu.Unlock()
	_ = files.WriteFile(fmt.Sprintf("%s%s%d", log, countSuffix, os.Getpid()), []byte(strconv.FormatInt(answered.Load(), 10)+"\n"), 0o644)
}
