package oracle

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// Read is a Reading of pid: each thread's class (threadClasses) and the autogroup's nice.
func Read(pid int) (Reading, error) {
	all, err := threadClasses(pid)
	if err != nil {
		return Reading{}, err
	}
	r := Reading{Threads: make(map[uint64]string, len(all))}
	for tid, c := range all {
		r.Threads[uint64(tid)] = c.String()
	}
	if c, ok := all[pid]; ok {
		r.Main = c.String()
	}
	ag, err := os.ReadFile(fmt.Sprintf("/proc/%d/autogroup", pid))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return Reading{}, err
	}
	r.Process = "autogroup " + strings.TrimSpace(string(ag))
	return r, nil
}

func threadName(tid uint64) string { return fmt.Sprintf("tid %d", tid) }
