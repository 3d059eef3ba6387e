package launcher

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/classproof/classproof/helpers/base/files"
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

// kitProcesses are the run's own processes but this one and what is below it: what descends from
// top, the highest of its kin (proc.KinTop: the CLI supervising the run, or the parent), so other
// test processes, other suites' and what their launchers started. None is this process's
// launcher's: without a subreaper (macOS) an orphan goes to launchd, never below the kit's kin.
func kitProcesses(table map[int]proctable.Info, top int, below []int) map[int]bool {
	out := map[int]bool{}
	if top <= 1 {
		return out
	}
	mine := set(below)
	for _, pid := range proctable.DescendantsIn(table, top) {
		if pid != os.Getpid() && !mine[pid] {
			out[pid] = true
		}
	}
	return out
}

// siblingFolders says, of a harness the process tree cannot place (on macOS an orphan goes to
// launchd, and what it started stays below it), whether its report is in a folder another test
// process of this run made (privateDir names it cpPID-..., and kit, kitProcesses, holds PID):
// that process's harness, caught under launchd while its cleanup kills its launcher, or started by
// a launcher that daemonizes. A claim a launcher could forge only by making a folder of that name
// beside the kit's, which its sandbox refuses (Seatbelt and Landlock allow it its own folders
// alone); never asked of a process below this one, whose tree says it is this process's.
//
// The claim must have the one shape the kit hands out, FOLDER/report-N.json, written plainly: a
// path through ".." (cpPID-x/../../mine/r.json) is the launcher's own folder in a sibling's name,
// and a report-N.json that is a symlink was planted by a launcher (the folder is its user's),
// read with Lstat, which follows nothing.
func siblingFolders(table map[int]proctable.Info, kit map[int]bool) func(report string) bool {
	base := files.Resolved(instanceBase()) + string(filepath.Separator)
	return func(report string) bool {
		rel, ok := strings.CutPrefix(report, base)
		if !ok || filepath.Clean(report) != report {
			return false
		}
		folder, file, ok := strings.Cut(rel, string(filepath.Separator))
		n, named := strings.CutPrefix(file, "report-")
		n, json := strings.CutSuffix(n, ".json")
		if !ok || !named || !json || !allDigits(n) {
			return false
		}
		if fi, err := os.Lstat(report); err == nil && !fi.Mode().IsRegular() {
			return false
		}
		pid := madeBy(folder)
		return kit[pid] && !table[pid].Zombie
	}
}

// allDigits says whether s is a non-empty run of ASCII digits.
func allDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// madeBy is the pid a private folder's name gives (cpPID-...), of the first name in rel; 0 for
// any other name.
func madeBy(rel string) int {
	name, _, _ := strings.Cut(rel, string(filepath.Separator))
	digits, ok := strings.CutPrefix(name, "cp")
	if !ok {
		return 0
	}
	if digits, _, ok = strings.Cut(digits, "-"); !ok {
		return 0
	}
	pid, err := strconv.Atoi(digits)
	if err != nil || pid <= 0 || strconv.Itoa(pid) != digits {
		return 0
	}
	return pid
}

// instanceBase is the folder the instances' private folders are made in.
func instanceBase() string {
	if base := os.TempDir(); len(base) <= 40 {
		return base
	}
	return "/tmp" // macOS's per-user TMPDIR is long enough to overflow sun_path
}
