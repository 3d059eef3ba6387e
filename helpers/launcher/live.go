package launcher

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/classproof/classproof/helpers/base/proctable"
)

// live are the instances of this process not yet closed: a spec may run two at once, and a
// harness below the suite process that is another instance's is not this one's to account for.
var live registry

type registry struct {
	mu  sync.Mutex
	all []*Instance
}

func (r *registry) add(l *Instance) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.all = append(r.all, l)
}

func (r *registry) remove(l *Instance) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.all = slices.DeleteFunc(r.all, func(x *Instance) bool { return x == l })
}

// others are the live instances but l, as what tells their processes apart.
func (r *registry) others(l *Instance) siblings {
	r.mu.Lock()
	defer r.mu.Unlock()
	var s siblings
	for _, x := range r.all {
		if x == l {
			continue
		}
		s.roots = append(s.roots, x.liveRoots()...)
		s.dirs = append(s.dirs, x.Dir+string(filepath.Separator))
	}
	return s
}

// siblings are other live instances: their daemons and hosts, and their folders, below which
// their handed report paths are.
type siblings struct {
	roots []int
	dirs  []string
}

// in says, of the processes in table, whether pid is one of theirs: below their daemon or host
// (read from the table once), or a harness whose report is in one of their folders.
func (s siblings) in(table map[int]proctable.Info, deadline time.Time) func(pid int) bool {
	if len(s.roots) == 0 {
		return func(int) bool { return false }
	}
	below := set(proctable.DescendantsIn(table, s.roots...))
	return func(pid int) bool {
		if below[pid] {
			return true
		}
		args, err := proctable.ArgsAfterExec(pid, execWait, deadline) // a sibling's harness may be in exec
		if err != nil {
			return false
		}
		report := reportOf(args)
		return slices.ContainsFunc(s.dirs, func(d string) bool { return strings.HasPrefix(report, d) })
	}
}

// liveRoots are the instance's daemon and host pids that name a process: a pid of 0 (one not
// started yet) would name the whole table as its descendants.
func (l *Instance) liveRoots() []int {
	return slices.DeleteFunc(l.Roots(), func(pid int) bool { return pid <= 1 })
}
