package oracle

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Reading is a cheap reading of one process's class, for a watch that reads every harness and
// tool of a run many times a second: no ps call, only what the kernel keeps per process and per
// thread (Linux: /proc/PID/task/TID/stat and ioprio_get per thread, the autogroup's nice; macOS:
// proc_pidinfo's base priority of the task and of each thread). It judges nothing by itself:
// Changed compares two readings of one process.
type Reading struct {
	Process string            // what is the process's as a whole
	Threads map[uint64]string // each thread's class, by tid (macOS: the thread's handle)
	Main    string            // the class a thread started since must have: the main thread's (macOS: the task's)
}

// Changed says how now differs from first, two readings of one process: the process's part, a
// thread read both times whose class moved, or a thread started since at another class than
// first's main thread (a launcher that moves each new thread is no less a renice). A thread that
// ended has no class left, so it is no change. "" when nothing moved.
func Changed(first, now Reading) string {
	var why []string
	if first.Process != now.Process {
		why = append(why, fmt.Sprintf("%s, first %s", now.Process, first.Process))
	}
	// Threads that moved alike are named in one line: a runtime's ten threads reniced at once
	// are one change.
	type move struct{ from, to string }
	var order []move
	moved := map[move][]string{}
	for _, id := range slices.Sorted(maps.Keys(now.Threads)) {
		c := now.Threads[id]
		was, ok := first.Threads[id]
		name := threadName(id)
		if !ok {
			was, name = first.Main, name+" (started since; the main thread's first class)"
		}
		if c != was && (ok || first.Main != "") {
			m := move{was, c}
			if moved[m] == nil {
				order = append(order, m)
			}
			moved[m] = append(moved[m], name)
		}
	}
	for _, m := range order {
		why = append(why, fmt.Sprintf("%s: %s, first %s", strings.Join(moved[m], ", "), m.to, m.from))
	}
	return strings.Join(why, "; ")
}

// Confirmed is how b differs from first (Changed) in what a, a reading of the same process just
// before b, says alike: a thread's class counts where both readings give it the same, the
// process's part where both do. A class read once is no change: a thread read as it exits, or a
// reading torn by a thread started between its reads, says nothing of the class the process
// runs at, and a renice, which stays, reads the same twice.
func Confirmed(first, a, b Reading) string {
	both := Reading{Process: first.Process, Threads: map[uint64]string{}, Main: b.Main}
	if a.Process == b.Process {
		both.Process = b.Process
	}
	for id, c := range b.Threads {
		if was, ok := a.Threads[id]; ok && was == c {
			both.Threads[id] = c
		}
	}
	return Changed(first, both)
}
