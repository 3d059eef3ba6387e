package launcher

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/classproof/classproof/helpers/base/proc"
	"github.com/classproof/classproof/helpers/base/proctable"
	"github.com/classproof/classproof/helpers/oracle"
)

// hand records a report path the kit hands out (a session's profile, a spawn spec): the one
// harness each may start (Account); with the harness command it was handed in (a profile's), for
// ArgvAsHanded.
func (l *Instance) hand(report string, command ...string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.handed = append(l.handed, report)
	if len(command) > 0 {
		if l.commands == nil {
			l.commands = map[string][]string{}
		}
		l.commands[report] = slices.Clone(command)
	}
}

// commandFor is the harness command handed out with report; nil for none.
func (l *Instance) commandFor(report string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.commands[report]
}

// Account checks, from the kernel, every process of this instance that runs the kit's harness
// code (by content: a copy or a memfd of the harness is one): exactly one for each report path
// the kit handed out, none for a path it did not.
// A report names the process the launcher points at; a launcher that starts the harness twice
// (a retry, a fallback path, or a second harness at normal beside a decoy at background) breaks
// the seed's promise in the one the kit would not look at otherwise. The error names each such
// process with its class as ps reads it.
func (l *Instance) Account() error {
	im, err := proctable.ImageOf(l.d.Harness)
	if err != nil {
		return fmt.Errorf("reading the kit's harness %s to know it by its content: %w", l.d.Harness, err)
	}
	// One bound on the waits for harnesses caught in exec, however many a launcher holds there.
	deadline := time.Now().Add(proctable.StarvedFactor * execWait)
	pids, uncertain, err := l.candidates(im, deadline)
	if err != nil {
		return fmt.Errorf("listing the processes of %s to account for every harness: %w", l.d.Manifest.Name, err)
	}
	l.mu.Lock()
	handed := slices.Clone(l.handed)
	l.mu.Unlock()
	byReport := map[string][]int{}
	var wrong []string
	var harnesses, others []int
	named := map[int]bool{}
	for _, pid := range pids {
		args, harness, cantTell := harnessArgs(im, pid, uncertain[pid], deadline)
		switch {
		case cantTell != "":
			wrong, named[pid] = append(wrong, harnessLine(pid, args, cantTell)+below(pid)), true
			continue
		case !harness:
			others = append(others, pid) // gone, or not the harness
			continue
		}
		harnesses = append(harnesses, pid)
		report := reportOf(args)
		if !slices.Contains(handed, report) {
			wrong, named[pid] = append(wrong, harnessLine(pid, args, "its --report "+quoteOr(report)+" is no path the kit handed out")), true
			continue
		}
		byReport[report] = append(byReport[report], pid)
	}
	for report, ps := range byReport {
		if len(ps) > 1 {
			for _, pid := range ps {
				args, _ := proctable.Args(pid)
				wrong, named[pid] = append(wrong, harnessLine(pid, args, fmt.Sprintf("one of %d harnesses for the one report %s", len(ps), report))), true
			}
		}
	}
	l.note(others, harnesses)
	var errs []error
	if len(wrong) > 0 {
		slices.Sort(wrong)
		errs = append(errs, fmt.Errorf("every harness accounted for: %s started the kit's harness where the kit handed out no session for it, and the kit judges only the one a report names:\n  %s",
			l.d.Manifest.Name, strings.Join(wrong, "\n  ")))
	}
	if gone := l.unjudged(handed, im, named); len(gone) > 0 {
		errs = append(errs, fmt.Errorf("every harness judged: %s started the harness the kit handed out, and it ended, or can no longer be told apart, before the kit judged it:\n  %s",
			l.d.Manifest.Name, strings.Join(gone, "\n  ")))
	}
	return errors.Join(errs...)
}

// harnessArgs says whether pid runs the harness's code, with the arguments it runs it with: its own,
// or, where the dynamic loader runs it (ld.so HARNESS --report ...), those from the harness's path
// on. cantTell says why the kit cannot tell, for a live process it cannot read: a process whose
// executable reads as gone while its threads run (its leader thread exited: /proc/PID/exe is
// ENOENT, its other threads run on) is one, never "gone". A process that may be a stranger's
// (uncertain: found by a group or session id, or among launchd's children), one that ended and
// one on its way out are not harnesses then.
func harnessArgs(im proctable.Image, pid int, uncertain bool, deadline time.Time) (args []string, harness bool, cantTell string) {
	runs, err := im.RunBy(pid)
	if err != nil {
		if uncertain {
			return nil, false, ""
		}
		switch alive, aerr := proctable.Alive(pid); {
		case aerr != nil:
			return nil, false, fmt.Sprintf("the kit cannot read its executable (%v) nor tell whether it runs (%v), so cannot tell whether it runs the harness", err, aerr)
		case !alive || proctable.Exiting(pid):
			return nil, false, ""
		case gone(err):
			// No executable: its memory is gone. A process on its way out (between exit_mm
			// and its zombie; in exit_group its leader may be a zombie first) is none; one whose
			// leader ended while its threads run on is. Exiting is read after LeaderExited, so
			// a process that was on its way out when either was read is seen so.
			exited, lerr := proctable.LeaderExited(pid)
			switch {
			case lerr != nil && !gone(lerr):
				return nil, false, fmt.Sprintf("it runs, yet the kit cannot read its executable (%v) nor its state (%v), so cannot tell whether it runs the harness", err, lerr)
			case lerr != nil || !exited || proctable.Exiting(pid):
				return nil, false, ""
			}
		}
		args, _ := proctable.Args(pid)
		return args, false, fmt.Sprintf("it runs, yet the kit cannot read its executable (%v; a process whose main thread ended while its others run shows none), so cannot tell whether it runs the harness", err)
	}
	switch {
	case runs:
		// A harness the launcher is starting may be in the middle of exec: which report it
		// has is known once the kernel shows its arguments.
		args, err := proctable.ArgsAfterExec(pid, execWait, deadline)
		harness, cantTell = argsRead(true, err, func() (bool, error) { return proctable.Alive(pid) }, "it runs the harness's code")
		return args, harness, cantTell
	}
	// The arguments are read only where the loader runs; one in the middle of exec shows them late.
	var argsErr error
	args, loaded, err := im.LoadedBy(pid, func(pid int) ([]string, error) {
		a, err := proctable.ArgsAfterExec(pid, execWait, deadline)
		argsErr = err
		return a, err
	})
	if err != nil && argsErr == nil {
		// Its arguments read, but a file they name is one the kit cannot open or parse: the
		// program the loader runs may be the harness.
		switch alive, aerr := proctable.Alive(pid); {
		case aerr != nil:
			return args, false, fmt.Sprintf("the dynamic loader runs in it, and the kit can neither read the program it names (%v) nor tell whether it runs (%v)", err, aerr)
		case !alive:
			return nil, false, ""
		}
		return args, false, fmt.Sprintf("the dynamic loader runs in it, and the kit cannot read the program it names (%v), so cannot tell whether it runs the harness", err)
	}
	harness, cantTell = argsRead(loaded, err, func() (bool, error) { return proctable.Alive(pid) }, "the dynamic loader runs in it")
	return args, harness, cantTell
}

// argsRead decides, for a process whose code may be the harness's (runs: it is, where err is
// nil), from the error of reading its arguments: a harness; not one; or why the kit cannot tell,
// for a live process, whatever the error (what says what the kit knows of it). The kit that cannot
// read a harness's arguments never calls it "not a harness": macOS answers EINVAL for the
// arguments of another uid's process (XNU bsd/kern/kern_sysctl.c sysctl_procargsx), so a second
// harness a launcher started as another user (sudo -u) would pass for none. A process that ended
// since is none; one the kit cannot tell ended is not.
func argsRead(runs bool, err error, alive func() (bool, error), what string) (harness bool, cantTell string) {
	if err == nil {
		return runs, ""
	}
	live, aerr := alive()
	switch {
	case aerr != nil:
		return false, fmt.Sprintf("%s but the kit can neither read its arguments (%v) nor tell whether it runs (%v)", what, err, aerr)
	case !live:
		return false, ""
	case errors.Is(err, proctable.ErrNoArgs):
		return false, fmt.Sprintf("%s but shows no arguments (%v), so the kit cannot tell which report it has", what, err)
	}
	return false, fmt.Sprintf("%s but the kit cannot read its arguments (%v), so cannot tell which report it has", what, err)
}

// execWait is how long Account waits for a harness in the middle of exec to show its arguments.
const execWait = 2 * time.Second

// note keeps, as evidence, each process of others seen for the first time that is neither the
// launcher's own service nor a harness's tool: a launcher's helpers may run at normal, and a
// receipt shows them with their class (TakeEvidence).
func (l *Instance) note(others, harnesses []int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen == nil {
		l.seen = map[int]bool{}
	}
	others = slices.DeleteFunc(others, func(pid int) bool { return l.seen[pid] || slices.Contains(l.Roots(), pid) })
	if len(others) == 0 {
		return
	}
	tools, _ := proctable.Descendants(harnesses...)
	for _, pid := range others {
		l.seen[pid] = true
		if slices.Contains(tools, pid) {
			continue
		}
		args, err := proctable.Args(pid)
		o, oerr := oracle.ObserveOne("launcher process", pid)
		if err == nil && oerr == nil {
			l.evidence = append(l.evidence, fmt.Sprintf("%s; %q", o, args))
		}
	}
}

// TakeEvidence is what note kept since the last call: the launcher's processes beside its
// services, harnesses and tools, each with its class.
func (l *Instance) TakeEvidence() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.evidence
	l.evidence = nil
	return out
}

// candidates are the processes that may be this instance's: its cgroup's members, or, without
// one, what descends from its daemon and host; anywhere in the table, what is in a process group
// it started (a client command's leftovers) or a session one of its processes made (setsid: on
// macOS an orphan goes to launchd, not to the kit); and what descends from the suite process (a
// subreaper: what the launcher double-forks comes back to it) and runs the harness, whatever its
// report path and environment, unless another live instance of this process's handed it out;
// without a subreaper (macOS), what runs the harness among launchd's children (strays).
func (l *Instance) candidates(im proctable.Image, deadline time.Time) (pids []int, uncertain map[int]bool, err error) {
	if cg := l.set.Cgroup(); cg != nil {
		pids, err = cg.Members()
		return pids, nil, err
	}
	table, err := proctable.Table() // read once: this runs at every observation
	if err != nil {
		return nil, nil, err
	}
	mine := proctable.DescendantsIn(table, l.liveRoots()...)
	below := proctable.DescendantsIn(table, os.Getpid())
	seen, isBelow := set(mine), set(below)
	uncertain = map[int]bool{}
	add := func(pid int) {
		mine, seen[pid] = append(mine, pid), true
		uncertain[pid] = !isBelow[pid] // a pid reused since may be a stranger's
	}
	groups, sessions := l.groups(table, mine)
	for pid, in := range table {
		if !seen[pid] && (groups[in.Pgid] || sessions[in.Sid]) {
			add(pid)
		}
	}
	kit := kitProcesses(table, proc.KinTop(), below)
	theirs, sibling := live.others(l).in(table, deadline), siblingFolders(table, kit)
	for _, pid := range strays(table, below, proc.Subreaper) {
		// The run's other processes are never this one's; nor is one that ended, or is on its
		// way out (macOS: P_WEXIT).
		if seen[pid] || kit[pid] || table[pid].Zombie {
			continue
		}
		// Whose it is is asked of what runs the harness only: it may wait on one in exec.
		if runs, err := im.RunBy(pid); (runs || err != nil && mayRun(pid)) && !theirs(pid) &&
			(isBelow[pid] || !sibling(reportOf(readArgs(pid, deadline)))) {
			add(pid) // Account names it, or says it cannot tell
		}
	}
	return mine, uncertain, nil
}

// gone says a read of a process's file failed because the process, or its memory, is no more.
func gone(err error) bool { return errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ESRCH) }

// mayRun says pid runs, or the kit cannot tell that it does not.
func mayRun(pid int) bool {
	alive, err := proctable.Alive(pid)
	return alive || err != nil
}

// readArgs is pid's arguments, nil when they cannot be read (which no folder of another process's
// is: Account then says it cannot tell).
func readArgs(pid int, deadline time.Time) []string {
	args, _ := proctable.ArgsAfterExec(pid, execWait, deadline)
	return args
}

// set is pids as a set.
func set(pids []int) map[int]bool {
	s := make(map[int]bool, len(pids))
	for _, pid := range pids {
		s[pid] = true
	}
	return s
}

// strays are where a harness that left its launcher's tree is: below the suite process, the
// subreaper of what its specs start; where there is none (macOS), an orphan goes to launchd (XNU
// bsd/kern/kern_exit.c, proc_reparentlocked(q, initproc, ...)) and what it started stays below
// it: a harness below an orphaned middle process (setsid, then its parent exits) is launchd's
// grandchild, so every process in the table is one.
func strays(table map[int]proctable.Info, below []int, subreaper bool) []int {
	if subreaper {
		return below
	}
	return slices.Concat(below, slices.Collect(maps.Keys(table)))
}

// groups are the process groups the kit started this instance's processes in, and the sessions
// its processes made, kept from one observation to the next: a session outlives its leader.
func (l *Instance) groups(table map[int]proctable.Info, mine []int) (groups, sessions map[int]bool) {
	groups = map[int]bool{}
	for _, e := range l.set.Entries() {
		if e.Owned { // started by the kit, in a group of its own (launcher.start)
			groups[e.Pid] = true
		}
	}
	kit, _ := unix.Getsid(0)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sessions == nil {
		l.sessions = map[int]bool{}
	}
	for _, pid := range mine {
		if sid := table[pid].Sid; sid > 1 && sid != kit {
			l.sessions[sid] = true
		}
	}
	return groups, maps.Clone(l.sessions)
}

// reportOf is the one report path a harness with these arguments writes, parsed as the harness
// parses them (Go's flag package: -report or --report, its value next or after "=", the last one
// winning, parsing ending at the first argument that is no flag or at "--"); "" when there is none,
// or more than one: the kit reads the first, the harness writes the last, and a launcher that gave
// two had a harness pass for the report the kit handed out while it wrote another.
func reportOf(args []string) string {
	var found []string
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" || len(a) < 2 || a[0] != '-' {
			break
		}
		name, value, inline := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if !inline && i+1 < len(args) {
			i++ // every flag of the harness takes a value
			value = args[i]
		}
		if name == "report" {
			found = append(found, value)
		}
	}
	if len(found) != 1 {
		return ""
	}
	return found[0]
}

func quoteOr(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// harnessLine names a harness process for a receipt: pid, class as ps reads it, arguments, why.
func harnessLine(pid int, args []string, why string) string {
	o, err := oracle.ObserveOne("harness", pid)
	if err != nil {
		return fmt.Sprintf("harness pid %d (class unread: %v; as the kernel says: %s) %q: %s", pid, err, proctable.ThreadsClass(pid), args, why)
	}
	return fmt.Sprintf("%s; %q: %s", o, args, why)
}
