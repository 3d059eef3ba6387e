// Package cgroup is the kit's containment where the OS gives one: a cgroup v2 folder per run and
// per spec's set of launcher processes (exact membership: a double fork or setsid cannot leave
// it; cgroup.kill ends it all). Where there is none (macOS, a machine without a writable cgroup
// v2), Contained says why, and the kit contains with process groups and its own tracking
// (helpers/base/proc).
package cgroup

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"github.com/classproof/classproof/helpers/base/proctable"
)

// Containment is where a run's launcher processes live, as the OS knows it: on Linux a cgroup v2
// folder of the run's own (exact membership: a double fork or setsid cannot leave it, and
// cgroup.kill ends it all), else only what the kit tracks itself (process groups, the run's token,
// the pid ledger, descendants of what it started).
type Containment struct {
	// Cgroup is the folder every launcher process of this process's Sets starts below; nil when
	// none could be made, and Why says why.
	Cgroup *Cgroup
	Why    string
}

// String is the containment in one line, for run.json, the summary and doctor.
func (c Containment) String() string {
	if c.Cgroup != nil {
		return "cgroup v2 " + c.Cgroup.Path + " (every launcher process starts in a cgroup of its spec's; what is left after the cleanup is a leak, killed with cgroup.kill)"
	}
	return "process groups, the run token and the pid ledger (" + c.Why + ")"
}

// Cgroup is one cgroup v2 folder the kit made.
type Cgroup struct {
	Path string // where it is mounted: /sys/fs/cgroup/...
	rel  string // as /proc/PID/cgroup names it ("0::" + rel)
	fd   int    // open on the folder for clone3's CLONE_INTO_CGROUP; -1 once closed
	//lint:ignore U1000 set and read by the Linux half (cgroup_linux.go, close_linux.go); macOS has no cgroup
	made bool // made by this process, so removed by it
}

// Off, as contract.CgroupEnv, turns the cgroup off for a run and its suites: the containment of
// a machine without one, on one with it (the kit's own tests of that path).
const Off = "off"

var root struct {
	once sync.Once
	used atomic.Bool
	c    Containment
	made bool
}

// Contained is this process's containment, decided once: the run's cgroup the CLI handed down
// (contract.CgroupEnv), else one this process makes below its own, else none.
func Contained() Containment {
	root.once.Do(func() {
		root.used.Store(true)
		cg, made, err := openRoot()
		if err != nil {
			root.c.Why = err.Error()
			return
		}
		root.c.Cgroup, root.made = cg, made
	})
	return root.c
}

// CloseContained kills what is left in a cgroup this process made for itself and removes it; a
// cgroup handed down by the CLI is the CLI's to close. It returns a line per process that was
// still there, each a leak. reap runs once it is empty (Close).
func CloseContained(reap func()) ([]string, error) {
	if !root.used.Load() {
		return nil, nil // never asked for: nothing was made
	}
	c := Contained()
	if c.Cgroup == nil || !root.made {
		return nil, nil
	}
	return c.Cgroup.Close(reap)
}

// Leftover describes a process found in a cgroup after everything tracked in it was killed.
func Leftover(pid int) string {
	args, err := proctable.Args(pid)
	a := fmt.Sprintf("%q", args)
	if err != nil {
		a = "args unreadable: " + err.Error()
	}
	return fmt.Sprintf("pid %d %s, %s", pid, a, proctable.ClassOf(pid))
}

// Name is a folder name that no two Sets of the machine share.
func Name(kind string, n int64) string {
	return fmt.Sprintf("%s-%d-%d", kind, os.Getpid(), n)
}

// None is a cgroup that holds no process: the scope of a Set that started nothing in one.
func None(why string) *Cgroup { return &Cgroup{Path: why, rel: "\x00", fd: -1} }
