package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
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
	made bool   // made by this process, so removed by it
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
// still there, each a leak.
func CloseContained() ([]string, error) {
	if !root.used.Load() {
		return nil, nil // never asked for: nothing was made
	}
	c := Contained()
	if c.Cgroup == nil || !root.made {
		return nil, nil
	}
	return c.Cgroup.Close()
}

// errNoCgroup is why a platform has no cgroup.
var errNoCgroup = errors.New("no cgroup v2 on this OS")

// leftover describes a process found in a cgroup after everything tracked in it was killed.
func leftover(pid int) string {
	args, err := Args(pid)
	a := fmt.Sprintf("%q", args)
	if err != nil {
		a = "args unreadable: " + err.Error()
	}
	return fmt.Sprintf("pid %d %s, %s", pid, a, classOf(pid))
}

// cgroupName is a folder name that no two Sets of the machine share.
func cgroupName(kind string, n int64) string {
	return fmt.Sprintf("%s-%d-%d", kind, os.Getpid(), n)
}

// closeCgroup ends the set's cgroup once what the set tracks is dead: a process still in it
// escaped the kit's tracking (a double fork and setsid, say) and is a leak, named and killed.
func (s *Set) closeCgroup() error {
	s.mu.Lock()
	cg := s.cg
	s.cg = nil
	s.mu.Unlock()
	if cg == nil {
		return nil
	}
	leaks, err := cg.Close()
	if len(leaks) > 0 {
		err = errors.Join(fmt.Errorf("LEAK: still in the cgroup after the cleanup (it escaped the kit's tracking; killed with cgroup.kill): %s", strings.Join(leaks, "; ")), err)
	}
	return err
}

// Contain prepares cmd to start as one of the set's processes: in a process group of its own and,
// where this process has a cgroup (Contained), in the set's own cgroup, made on first use.
func (s *Set) Contain(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	root := Contained().Cgroup
	if root == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cg == nil {
		cg, err := root.Child(cgroupName("set", setSeq.Add(1)))
		if err != nil {
			return fmt.Errorf("containing %s: %w", cmd.Path, err)
		}
		s.cg = cg
	}
	s.cg.Start(cmd)
	return nil
}

// scope is what the set may signal beyond what it started itself: where there are cgroups, what
// is in its own (never another spec's, whose processes are in the same run's cgroup); nil where
// there are none, and the token and descent rules decide (see Tied).
func (s *Set) scope() *Cgroup {
	if Contained().Cgroup == nil {
		return nil
	}
	if cg := s.Cgroup(); cg != nil {
		return cg
	}
	return noCgroup
}

// noCgroup is the scope of a set that started nothing in a cgroup: it holds no process.
var noCgroup = &Cgroup{Path: "(none: the set started nothing)", rel: "\x00", fd: -1}

// Cgroup is the set's cgroup, nil before its first process or where there is none.
func (s *Set) Cgroup() *Cgroup {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cg
}

var setSeq atomic.Int64
