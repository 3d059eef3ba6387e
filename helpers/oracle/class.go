// Package oracle is the oracle: it reads a process's CPU class with the real ps (plus /proc and
// ioprio_get on Linux, proc_pidinfo on macOS) and says whether that class is what the launcher
// promised, and why not. It never asks the launcher; it only looks at the processes.
//
// It owns what a class is and how it is read; it must not import the Ginkgo DSL or Gomega
// (the matchers that turn its verdicts into receipts live in helpers/suite), nor fixtures/.
package oracle

import (
	"fmt"
	"strings"

	"github.com/classproof/classproof/helpers/base/contract"
)

// Meaning is what "background" means for a target on one OS.
type Meaning string

const (
	// DarwinBG is macOS PRIO_DARWIN_BG: ps -o pri shows 4.
	DarwinBG Meaning = "darwinbg"
	// LinuxIdle is the Linux analogue: SCHED_IDLE, I/O class idle, and autogroup nice 19 for a
	// process in an autogroup of its own.
	LinuxIdle Meaning = "idle"
	// Ignored is a launcher that reads the class and spawns as before (the seed on Linux): the
	// process keeps the control's class.
	Ignored Meaning = "ignore"
)

// ParseMeaning checks a manifest's word for an OS.
func ParseMeaning(goos, s string) (Meaning, error) {
	m := Meaning(s)
	switch {
	case goos == "darwin" && m == DarwinBG:
	case goos == "linux" && (m == LinuxIdle || m == Ignored):
	default:
		accepted := map[string]string{"darwin": "darwinbg", "linux": "idle, ignore"}[goos]
		return "", fmt.Errorf("background on %s: %q is not known; accepted: %s", goos, s, accepted)
	}
	return m, nil
}

// Describe says in a receipt what the meaning requires.
func (m Meaning) Describe() string {
	switch m {
	case DarwinBG:
		return fmt.Sprintf("base pri %d, or ps pri %d where the base priority was not read (darwinbg)", DarwinBGPri, DarwinBGPri)
	case LinuxIdle:
		return "ps cls IDL, policy 5 SCHED_IDLE, io class idle, autogroup nice 19 when not the control's autogroup"
	case Ignored:
		return "the control's class (the target ignores the class on this OS)"
	}
	return string(m)
}

// DarwinBGPri is what macOS ps -o pri shows for a process under PRIO_DARWIN_BG.
const DarwinBGPri = 4

// Observation is one reading of one process.
type Observation struct {
	Role string // what the process is in the spec, e.g. "hosted tool sleep"
	Pid  int
	GOOS string
	PS   string // the ps line, as ps printed it

	// From ps, both OSes. On macOS pri is the highest current priority of the task's threads
	// (adv_cmds ps), which a busy thread's decay can lower below its base and a promotion raise.
	Pri  int
	Nice string // "-" under SCHED_IDLE on Linux

	// macOS only: ps stat, and the task's base priority as proc_pidinfo reads it. Without
	// BaseRead the verdict rests on ps pri alone; BaseErr says why it was not read.
	Stat     string
	BasePri  int
	BaseRead bool
	BaseErr  string

	// Linux only.
	Cls           string // ps -o cls: TS, IDL, FF, RR, B, ...
	Policy        int    // /proc/PID/stat field 41
	IOClass       int    // ioprio_get class: 0 none, 1 rt, 2 be, 3 idle
	Autogroup     string // "/autogroup-12"; "" in the default autogroup (init's), or with no autogroups
	AutogroupNice int

	// Every thread, for a subject read with EveryThread (a harness, a tool): a class is per
	// thread (Linux: policy, nice and I/O priority; macOS: each thread's base priority), and a
	// process is at one class only when each of its threads is. Threads is how many were read,
	// OffThreads names each one whose class differs from the main thread's (Linux) or the task's
	// base priority (macOS), which ThreadsRef says. ps reads the main thread alone.
	Threads    int
	OffThreads []string
	ThreadsRef string
}

var policyNames = map[int]string{0: "SCHED_OTHER", 1: "SCHED_FIFO", 2: "SCHED_RR", 3: "SCHED_BATCH", 5: "SCHED_IDLE", 6: "SCHED_DEADLINE"}
var ioClassNames = map[int]string{0: "none", 1: "rt", 2: "be", 3: "idle"}

// Summary is the class part of a receipt line, without role and pid.
func (o Observation) Summary() string {
	if o.GOOS == "darwin" {
		s := fmt.Sprintf("ps pri %d nice %s", o.Pri, o.Nice)
		if o.Stat != "" {
			s += " stat " + o.Stat
		}
		switch {
		case o.BaseRead:
			s += fmt.Sprintf(", base pri %d", o.BasePri)
		case o.BaseErr != "":
			s += ", base pri unread (" + o.BaseErr + ")"
		}
		return s + o.threadsSummary()
	}
	s := fmt.Sprintf("ps cls %s ni %s pri %d, policy %d %s, io class %s", o.Cls, o.Nice, o.Pri, o.Policy, policyNames[o.Policy], ioClassNames[o.IOClass])
	if o.Autogroup != "" {
		s += fmt.Sprintf(", %s nice %d", strings.TrimPrefix(o.Autogroup, "/"), o.AutogroupNice)
	}
	return s + o.threadsSummary()
}

// threadsSummary names the threads off the process's class; "" when every thread read agrees.
func (o Observation) threadsSummary() string {
	if len(o.OffThreads) == 0 {
		return ""
	}
	return fmt.Sprintf("; %d of %d threads not at %s: %s", len(o.OffThreads), o.Threads, o.ThreadsRef, strings.Join(o.OffThreads, ", "))
}

// offThreads is why a verdict fails for threads at another class than the process's reading.
func (o Observation) offThreads() []string {
	if len(o.OffThreads) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%d of %d threads not at %s (tids above)", len(o.OffThreads), o.Threads, o.ThreadsRef)}
}

// String is a whole receipt line: "hosted tool sleep pid 4242: ps pri 31 nice 0".
func (o Observation) String() string {
	return fmt.Sprintf("%s pid %d: %s", o.Role, o.Pid, o.Summary())
}

// Decision is which reading a verdict on a process rested on: Reading is one of
// contract.ReadingBasePri, ReadingPsPri, ReadingEveryField, a value the report counts by, never
// parsed back from prose; Unread says why the base priority was not read when ps pri decided.
type Decision struct {
	Reading string
	Unread  string
}

// String is the decision as a receipt says it: "" on Linux, where every field counts.
func (d Decision) String() string {
	switch d.Reading {
	case contract.ReadingBasePri:
		return "decided by base pri"
	case contract.ReadingPsPri:
		return "decided by ps pri; base pri unread (" + d.Unread + ")"
	}
	return ""
}

// DecidedBy says which macOS reading a verdict on o rested on: the base priority when it was
// read (for a comparison with the control, on both sides), else ps pri. control is nil for a
// verdict on o alone. On Linux every field counts.
func DecidedBy(o Observation, control *Observation) Decision {
	if o.GOOS != "darwin" {
		return Decision{Reading: contract.ReadingEveryField}
	}
	if o.BaseRead && (control == nil || control.BaseRead) {
		return Decision{Reading: contract.ReadingBasePri}
	}
	whose, why := "", o.BaseErr
	if o.BaseRead { // then the control's was not
		whose, why = "the control's: ", control.BaseErr
	}
	if why == "" {
		why = "not read"
	}
	return Decision{Reading: contract.ReadingPsPri, Unread: whose + why}
}

// Subject names a process to observe. EveryThread reads each of its threads too: a harness's
// and a tool's, whose class is the promise; a launcher's own processes are read by their main
// thread (a daemon may lower one thread of its own for a while, and that thread is not the
// promise).
type Subject struct {
	Role        string
	Pid         int
	EveryThread bool
}

// Background reports whether o is at background in the sense of m, and if not, why. control is
// needed for Ignored and for the Linux autogroup rule.
func Background(m Meaning, o, control Observation) (bool, string) {
	switch m {
	case DarwinBG:
		// The base priority is what PRIO_DARWIN_BG sets; ps pri is the seed's observer and
		// agrees for an idle process. A busy background process may read ps pri 0-3.
		why := o.offThreads()
		switch {
		case o.BaseRead && o.BasePri != DarwinBGPri:
			why = append([]string{fmt.Sprintf("base pri %d (ps pri %d), expected %d (darwinbg)", o.BasePri, o.Pri, DarwinBGPri)}, why...)
		case !o.BaseRead && o.Pri != DarwinBGPri:
			why = append([]string{fmt.Sprintf("ps pri %d, expected %d (darwinbg)", o.Pri, DarwinBGPri)}, why...)
		}
		return len(why) == 0, strings.Join(why, "; ")
	case LinuxIdle:
		var why []string
		if o.Cls != "IDL" {
			why = append(why, fmt.Sprintf("ps cls %s, expected IDL", o.Cls))
		}
		if o.Policy != 5 {
			why = append(why, fmt.Sprintf("policy %d %s, expected 5 SCHED_IDLE", o.Policy, policyNames[o.Policy]))
		}
		if o.IOClass != 3 {
			why = append(why, fmt.Sprintf("io class %s, expected idle", ioClassNames[o.IOClass]))
		}
		// SCHED_IDLE only ranks threads within one autogroup: a process in a session of its own
		// competes with the GUI's session as a peer unless its autogroup is niced too.
		if o.Autogroup != "" && o.Autogroup != control.Autogroup && o.AutogroupNice != 19 {
			why = append(why, fmt.Sprintf("%s nice %d, expected 19 (its own autogroup)", strings.TrimPrefix(o.Autogroup, "/"), o.AutogroupNice))
		}
		why = append(why, o.offThreads()...)
		return len(why) == 0, strings.Join(why, "; ")
	case Ignored:
		return SameClass(o, control)
	}
	return false, fmt.Sprintf("unknown meaning %q", m)
}

// SameClass reports whether o has the control's class, and if not, how it differs. On macOS the
// base priorities decide when both were read: ps pri is the highest current priority among a
// task's threads (adv_cmds ps/print.c pri, from the threads' pth_curpri gathered in ps/tasks.c),
// which decays while a thread runs (XNU osfmk/kern/sched_average.c, priority.c) and rises on a
// promotion, so two processes of one class can differ in ps pri on a busy runner.
func SameClass(o, control Observation) (bool, string) {
	var why []string
	if o.GOOS == "darwin" && o.BaseRead && control.BaseRead {
		if o.BasePri != control.BasePri {
			why = append(why, fmt.Sprintf("base pri %d, control's %d (ps pri %d, control's %d)", o.BasePri, control.BasePri, o.Pri, control.Pri))
		}
	} else if o.Pri != control.Pri {
		why = append(why, fmt.Sprintf("ps pri %d, control's %d", o.Pri, control.Pri))
	}
	if o.Nice != control.Nice {
		why = append(why, fmt.Sprintf("nice %s, control's %s", o.Nice, control.Nice))
	}
	if o.GOOS == "linux" {
		if o.Cls != control.Cls {
			why = append(why, fmt.Sprintf("ps cls %s, control's %s", o.Cls, control.Cls))
		}
		if o.Policy != control.Policy {
			why = append(why, fmt.Sprintf("policy %d, control's %d", o.Policy, control.Policy))
		}
		if o.IOClass != control.IOClass {
			why = append(why, fmt.Sprintf("io class %s, control's %s", ioClassNames[o.IOClass], ioClassNames[control.IOClass]))
		}
		if o.AutogroupNice != control.AutogroupNice {
			why = append(why, fmt.Sprintf("autogroup nice %d, control's %d", o.AutogroupNice, control.AutogroupNice))
		}
	}
	why = append(why, o.offThreads()...)
	return len(why) == 0, strings.Join(why, "; ")
}

// SameSettings reports whether o has the class settings that start (a reading of the same
// process, or of the one it inherits from) had: what a launcher could change in a process it
// did not start. It is SameClass, except that on macOS ps pri decides nothing: it is the highest
// current priority of a task's threads (adv_cmds ps/print.c), which decays while the busy test
// process runs, so there the base priority (where both were read) and nice are the settings.
func SameSettings(o, start Observation) (bool, string) {
	if o.GOOS == "darwin" {
		o.Pri = start.Pri
	}
	return SameClass(o, start)
}
