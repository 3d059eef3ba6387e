package launcher

import (
	"fmt"
	"strings"
	"syscall"

	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/oracle"
)

// Mode is how a session starts its harness.
type Mode string

const (
	Direct Mode = "direct" // the daemon's own child
	Hosted Mode = "hosted" // through the agent host, from a spawn spec
)

// Session is one started harness.
type Session struct {
	Mode    Mode
	Profile string // the profile's name
	Output  string // what the launcher's client printed
	Report  contract.HarnessReport
	report  string
	l       *Instance
}

// SessionError is a session the launcher refused or failed to start.
type SessionError struct {
	Mode    Mode
	Profile string // the profile's name, which a refusal should mention
	Report  string // the report path the refused harness would have written: its argv names it
	Argv    []string
	Output  string
	Err     error
}

func (e *SessionError) Error() string {
	return fmt.Sprintf("%s session for profile %s: %q: %v; it said:\n%s", e.Mode, e.Profile, strings.Join(e.Argv, " "), e.Err, e.Output)
}

// StartSession asks the launcher for a session with the given profile env and waits for the
// harness's report. A refusal comes back as *SessionError.
func (l *Instance) StartSession(mode Mode, profileEnv map[string]string) (*Session, error) {
	return l.StartSessionWith(mode, profileEnv)
}

// StartSessionWith is StartSession with extra harness flags, e.g. --tool and --tool-args to make
// the harness's tool a CPU load for the bench.
func (l *Instance) StartSessionWith(mode Mode, profileEnv map[string]string, harnessArgs ...string) (*Session, error) {
	return l.startSession(mode, "", profileEnv, harnessArgs...)
}

// StartSessionAs is StartSession for a profile of the given name, which a spec may reuse: real
// profiles live long, and a launcher that keeps a profile's class after its first session must
// meet the same name twice to show it.
func (l *Instance) StartSessionAs(mode Mode, name string, profileEnv map[string]string) (*Session, error) {
	return l.startSession(mode, name, profileEnv)
}

func (l *Instance) startSession(mode Mode, name string, profileEnv map[string]string, harnessArgs ...string) (*Session, error) {
	p, err := l.prepareSession(mode, name, profileEnv, harnessArgs...)
	if err != nil {
		return nil, err
	}
	return p.finish(p.start(nil))
}

// track records the reported pids with the start times the harness reported: the report is a
// file read back later, and a pid whose process has changed since is not ours to kill.
func (s *Session) track() {
	s.l.set.TrackStarted(s.Harness().Role, s.Report.HarnessPid, s.Report.HarnessStart)
	s.l.keep(s, s.Harness(), s.Report.HarnessStart)
	for i, t := range s.Tools() {
		s.l.set.TrackStarted(t.Role, t.Pid, s.Report.Tools[i].Start)
		s.l.keep(s, t, s.Report.Tools[i].Start)
	}
}

// Harness is the harness process, for the oracle.
func (s *Session) Harness() oracle.Subject {
	return oracle.Subject{Role: string(s.Mode) + " harness", Pid: s.Report.HarnessPid, EveryThread: true}
}

// Tools are the tool processes the harness reported, for the oracle.
func (s *Session) Tools() []oracle.Subject {
	var out []oracle.Subject
	for i, t := range s.Report.Tools {
		out = append(out, oracle.Subject{Role: fmt.Sprintf("%s tool sleep #%d", s.Mode, i+1), Pid: t.Pid, EveryThread: true})
	}
	return out
}

// Subjects are the harness and its tools.
func (s *Session) Subjects() []oracle.Subject {
	return append([]oracle.Subject{s.Harness()}, s.Tools()...)
}

// StartLateTool makes the running harness start one more tool now (SIGUSR1) and returns it.
func (s *Session) StartLateTool() (oracle.Subject, error) {
	before := len(s.Report.Tools)
	if err := s.l.set.Signal(s.Harness().Role, s.Report.HarnessPid, s.Report.HarnessStart, syscall.SIGUSR1); err != nil {
		return oracle.Subject{}, fmt.Errorf("asking the harness for a late tool: %w", err)
	}
	if err := s.waitReport(func(r contract.HarnessReport) bool { return len(r.Tools) > before }); err != nil {
		return oracle.Subject{}, err
	}
	if err := s.verify(before); err != nil {
		return oracle.Subject{}, err
	}
	t := s.Tools()[before]
	s.l.set.TrackStarted(t.Role, t.Pid, s.Report.Tools[before].Start)
	s.l.keep(s, t, s.Report.Tools[before].Start)
	return t, nil
}

// LauncherPid returns the pid a session's harness must descend from: the daemon for a direct
// session, the agent host for a hosted one (the daemon again for a target with no separate host).
func (s *Session) LauncherPid() (string, int) {
	if s.Mode == Hosted && s.l.HostPid != 0 {
		return "agent host", s.l.HostPid
	}
	return "daemon", s.l.DaemonPid
}
