package launcher

import (
	"slices"
	"time"

	"github.com/classproof/classproof/helpers/oracle"
)

// Started is a harness or tool a session of an instance started, as the kit verified it: the
// subject, its start time (a pid reused since is another process) and its session's profile,
// and its class read then (oracle.Read), before a spec looks at it: a watch over its whole life
// compares every later reading with this one, so a raise just after the spec's own look is a
// change, not the watch's first reading.
type Started struct {
	oracle.Subject
	Start    uint64
	Session  string
	Seen     time.Time // when the kit verified it
	First    oracle.Reading
	FirstErr error
}

func (l *Instance) keep(s *Session, sub oracle.Subject, start uint64) {
	first, err := oracle.Read(sub.Pid)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.started = append(l.started, Started{Subject: sub, Start: start, Session: s.Profile, Seen: time.Now(), First: first, FirstErr: err})
}

// Started is every harness and tool the instance's sessions started, late tools included.
func (l *Instance) Started() []Started {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.started)
}

// AllStarted is Started of every live instance of this process.
func AllStarted() []Started {
	live.mu.Lock()
	all := slices.Clone(live.all)
	live.mu.Unlock()
	var out []Started
	for _, l := range all {
		out = append(out, l.Started()...)
	}
	return out
}
