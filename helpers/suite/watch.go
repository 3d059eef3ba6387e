package suite

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/classproof/classproof/helpers/base/proctable"
	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/oracle"
)

// WatchPoll is how often the run's watch reads every harness and tool of the suite process
// (docs/specs.md, "The horizon"): often enough to name within a quarter second when a class
// moved, cheap enough (a few /proc reads per thread, no ps) to run beside every spec.
const WatchPoll = 250 * time.Millisecond

// watch is this suite process's one sampler. From the suite's start to its end it reads, every
// WatchPoll, each harness and tool a live launcher instance has started (launcher.AllStarted)
// with oracle.Read, and keeps the first change of each: the seed's "no running process is
// reniced" and "no raise for the focused chat" hold for a process's whole life, not only at the
// moments a spec looks. A spec's cleanup fails on a change in its instances (changes), and the
// whole-run spec on one in the sessions started at the suite's beginning.
var watch = &watcher{procs: map[procKey]*watched{}}

type watcher struct {
	mu    sync.Mutex
	procs map[procKey]*watched
	once  sync.Once
}

// procKey names a process for its life: a pid names another process once its start differs.
type procKey struct {
	pid   int
	start uint64
}

type watched struct {
	launcher.Started
	first   oracle.Reading
	firstAt time.Time
	reads   int
	readErr string // readings that failed twice in a row while the process still ran, or may have
	fails   int
	change  string
	told    bool // change is in a failure already
	done    bool // gone, or changed: nothing more to read
}

// start runs the sampler, once per process.
func (w *watcher) start() {
	w.once.Do(func() {
		go func() {
			for range time.Tick(WatchPoll) {
				w.sample(launcher.AllStarted())
			}
		}()
	})
}

// sample reads each of the given processes once.
func (w *watcher) sample(started []launcher.Started) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, s := range started {
		k := procKey{s.Pid, s.Start}
		p := w.procs[k]
		if p == nil {
			p = &watched{Started: s}
			if s.FirstErr == nil {
				p.first, p.firstAt = s.First, s.Seen
			}
			w.procs[k] = p
		}
		p.look()
	}
}

// look reads p once: the first reading is what every later one must match, and a change counts
// when a second reading, at once, says it too of the process still running and not on its way
// out (confirm).
func (p *watched) look() {
	if p.done {
		return
	}
	if running, err := p.running(); err != nil || !running {
		p.unread(err) // it ended: nothing running is left to renice; or the kit cannot tell
		return
	}
	r, err := oracle.Read(p.Pid)
	// Read again by start time: a pid that ended and was reused during the read is another
	// process, whose class is no change of this one's.
	if running, rerr := p.running(); rerr != nil || !running {
		p.unread(rerr)
		return
	}
	if err != nil {
		// And it still runs: a watch that cannot read it is no watch. Once may be a process
		// on its way out; twice in a row, of one that is not dying, is not.
		if p.fails++; p.fails >= 2 && !proctable.Exiting(p.Pid) {
			p.readErr = "its class: " + err.Error()
		}
		return
	}
	p.fails, p.readErr = 0, ""
	now := time.Now()
	p.reads++
	if p.firstAt.IsZero() {
		p.first, p.firstAt = r, now
		return
	}
	if c := p.confirm(r); c != "" {
		p.done = true
		p.change = fmt.Sprintf("%s pid %d (profile %s) changed class while it ran, seen %v after the kit verified it (%v after the first reading, reading %d, every %v): %s",
			p.Role, p.Pid, p.Session, now.Sub(p.Seen).Round(time.Millisecond), now.Sub(p.firstAt).Round(time.Millisecond), p.reads, WatchPoll, c)
	}
}

// unread ends the watch of a process that ended (err nil), or counts a look at one the kit cannot
// tell runs (err: a read that failed, EMFILE say): that is never "ended", and the watch goes on
// looking; twice in a row is a failure of the watch, as a class it cannot read is.
func (p *watched) unread(err error) {
	if err == nil {
		p.done = true
		return
	}
	if p.fails++; p.fails >= 2 {
		p.readErr = "whether it still runs: " + err.Error()
	}
}

// running says the process p names still runs: its pid not ended, not reused, not a zombie with
// no thread left (proctable.Stat.Dead); an error when the kit cannot tell.
func (p *watched) running() (bool, error) {
	in, err := proctable.Lookup(p.Pid)
	switch {
	case proctable.Gone(err):
		return false, nil
	case err != nil:
		return false, err
	}
	return in.Start == p.Start && !in.Zombie, nil
}

// confirm is how r, a reading of p, differs from the first, as a second reading taken at once
// says too (oracle.Confirmed); "" when they do not agree, or when p has ended or is ending
// (proctable.Exiting) by then. The oracle leaves out a thread on its way out, whose I/O class
// reads none once the kernel has freed its context; this is the rule for the rest: a class read
// once, or of a process that is dying, is no renice. A renice stays, and is read twice within
// the same look: it costs nothing in catching one.
func (p *watched) confirm(r oracle.Reading) string {
	if oracle.Changed(p.first, r) == "" {
		return ""
	}
	again, err := oracle.Read(p.Pid)
	if running, rerr := p.running(); err != nil || rerr != nil || !running || proctable.Exiting(p.Pid) {
		return ""
	}
	return oracle.Confirmed(p.first, r, again)
}

// changes reads the given processes once more and returns every change the watch saw in their
// lives and has not told yet, one receipt line each.
func (w *watcher) changes(started []launcher.Started) []string {
	w.sample(started)
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, s := range started {
		p := w.procs[procKey{s.Pid, s.Start}]
		if p == nil || p.told {
			continue
		}
		switch {
		case p.change != "":
			out = append(out, p.change)
		case p.readErr != "":
			out = append(out, fmt.Sprintf("%s pid %d (profile %s): the watch could not read, while it ran, %s", p.Role, p.Pid, p.Session, p.readErr))
		default:
			continue
		}
		p.told = true
	}
	return out
}

// failChanges is the message for changes: "" when there are none.
func failChanges(changes []string, whose string) string {
	if len(changes) == 0 {
		return ""
	}
	return fmt.Sprintf("the run's watch saw %s change class while running (\"no running process is reniced\"):\n  %s",
		whose, strings.Join(changes, "\n  "))
}
