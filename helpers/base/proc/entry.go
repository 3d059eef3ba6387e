package proc

import (
	gops "github.com/mitchellh/go-ps"
	"golang.org/x/sys/unix"

	"github.com/classproof/classproof/helpers/base/proctable"
)

// Entry is one tracked process.
type Entry struct {
	Role string `json:"role"`
	Pid  int    `json:"pid"`
	// Leader is true when the process leads its own group at the time it is tracked: the group
	// is then killed as a whole, which takes the tools it started along.
	Leader bool `json:"leader"`
	// Exe is go-ps's (truncated) executable name, for the sweep's report.
	Exe string `json:"exe"`
	// Owned is true for a process the kit started with os/exec: its own Wait reaps it.
	Owned bool `json:"-"`
	// Start is the process's start time (see Info.Start), read when it is tracked or reported by
	// the process itself. Every alive, kill and reap decision compares it: a pid with another
	// start time is someone else's and is never waited for or signalled. 0 means the process was
	// gone before it could be tracked, so nothing is ever done to its pid.
	Start uint64 `json:"start,omitempty"`
	// Parent is the process's parent when it was recorded; Report, on a line the harness wrote of
	// itself or of a tool (Record), the --report path it was started with: the kit ties a harness
	// that ended before it was judged, and the tools it left, to the session it was handed for.
	Parent int    `json:"parent,omitempty"`
	Report string `json:"report,omitempty"`
}

// ours says whether the process this entry names, and not a later one with its pid, still exists
// (a zombie included: it is ours to reap); live adds that it is not a zombie. A process the kit
// cannot read (err) is neither ours nor gone: it is never signalled, and never waited for as ended.
func (e Entry) ours() (proctable.Info, bool, error) {
	if e.Start == 0 {
		return proctable.Info{}, false, nil
	}
	in, err := proctable.Lookup(e.Pid)
	switch {
	case proctable.Gone(err):
		return in, false, nil
	case err != nil:
		return in, false, err
	}
	return in, in.Start == e.Start, nil
}

func (e Entry) live() bool {
	live, _ := e.state()
	return live
}

// state is live, or the error that keeps the kit from telling.
func (e Entry) state() (live bool, err error) {
	in, ok, err := e.ours()
	return ok && !in.Zombie, err
}

// identify fills in the start time, group leadership and name of e's process, as it is now.
func identify(e Entry) Entry {
	in, err := proctable.Lookup(e.Pid)
	switch {
	case err != nil:
		e.Start = 0 // gone, or unread: never signalled
	case e.Start == 0:
		e.Start = in.Start
	case e.Start != in.Start:
		e.Start = 0 // the process that reported this pid is gone, and a stranger has it
	}
	if e.Start == 0 {
		return e
	}
	e.Parent = in.Ppid
	if pgid, err := unix.Getpgid(e.Pid); err == nil && pgid == e.Pid && pgid != unix.Getpgrp() {
		e.Leader = true
	}
	if p, err := gops.FindProcess(e.Pid); err == nil && p != nil {
		e.Exe = p.Executable()
	}
	return e
}
