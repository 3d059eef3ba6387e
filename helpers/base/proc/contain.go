package proc

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/classproof/classproof/helpers/base/cgroup"
)

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
	leaks, err := cg.Close(Reap)
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
	root := cgroup.Contained().Cgroup
	if root == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cg == nil {
		cg, err := root.Child(cgroup.Name("set", setSeq.Add(1)))
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
func (s *Set) scope() *cgroup.Cgroup {
	if cgroup.Contained().Cgroup == nil {
		return nil
	}
	if cg := s.Cgroup(); cg != nil {
		return cg
	}
	return noCgroup
}

// noCgroup is the scope of a set that started nothing in a cgroup: it holds no process.
var noCgroup = cgroup.None("(none: the set started nothing)")

// Cgroup is the set's cgroup, nil before its first process or where there is none.
func (s *Set) Cgroup() *cgroup.Cgroup {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cg
}

var setSeq atomic.Int64
