package launcher

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/files"
	"github.com/classproof/classproof/helpers/base/proctable"
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

// Profile is what the kit hands a launcher's session command as {profile}: a JSON file with the
// profile's name, env and harness command. A launcher with another profile format converts it in
// a thin adapter.
type Profile struct {
	Name    string            `json:"name"`
	Env     map[string]string `json:"env"`
	Command []string          `json:"command"`
	Cwd     string            `json:"cwd"`
}

// writeProfile writes the profile file for the n-th session and returns its path and name: the
// given name, or classproof-N, a name of its own.
func (l *Instance) writeProfile(name string, profileEnv map[string]string, harnessArgs ...string) (path, _, report string, err error) {
	n := l.n.Add(1)
	report = filepath.Join(l.Dir, fmt.Sprintf("report-%d.json", n))
	path = filepath.Join(l.Dir, fmt.Sprintf("profile-%d.json", n))
	if name == "" {
		name = fmt.Sprintf("classproof-%d", n)
	} else {
		// A reused profile is one file too, rewritten: a launcher may key what it keeps by
		// the path it is handed as well as by the name inside.
		path = filepath.Join(l.Dir, "profile-"+name+".json")
	}
	p := Profile{Name: name, Env: profileEnv, Cwd: l.Dir,
		Command: []string{l.d.Harness, "--report", report}}
	if ledger := contract.Current().Ledger; ledger != "" {
		p.Command = append(p.Command, "--ledger", ledger)
	}
	if token := l.set.Token(); token != "" {
		p.Command = append(p.Command, "--run", token)
	}
	p.Command = append(p.Command, harnessArgs...)
	l.hand(report, p.Command...)
	if p.Env == nil {
		p.Env = map[string]string{}
	}
	b, _ := json.MarshalIndent(p, "", "  ")
	return path, p.Name, report, l.WriteFile(path, b)
}

// WriteFile writes a file the launcher's processes read, and may rewrite (a profile, a spawn
// spec, a config file a spec plants), below this instance's folder, making the folders on the way:
// all of it the launcher's user's. That folder is theirs: nothing in it is followed (a symlink
// planted for a root kit to write through), see files.WriteBeneath.
func (l *Instance) WriteFile(path string, data []byte) error {
	rel, err := filepath.Rel(l.Dir, path)
	if err != nil {
		return err
	}
	id := l.d.RunsAs
	if !files.Within(path, l.Dir) { // a config file a manifest put elsewhere
		if id.Other() {
			return fmt.Errorf("target manifest %s: %s is outside the launcher's folder %s: a root kit writes a file for a launcher that runs as uid %d only below that folder; put it under {dir} or {home}",
				l.d.Manifest.Source, path, l.Dir, id.Uid)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		return files.WriteFile(path, data, 0o600)
	}
	uid, gid := -1, -1
	if id.Other() {
		uid, gid = id.Uid, id.Gid
	}
	return files.WriteBeneath(l.Dir, rel, data, uid, gid)
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

// verify checks what the report claims before the kit tracks or judges any of it: its harness is
// the one handed out (isTheHarness), and each tool from the first-th on is that harness's child,
// started when the report says. A report is the launcher's file: a tool it names that is no child
// of the harness (a decoy at background, another suite's test process) is never the kit's to
// judge or to signal.
func (s *Session) verify(first int) error {
	if err := s.isTheHarness(); err != nil {
		return err
	}
	if in, err := proctable.Lookup(s.Report.HarnessPid); err != nil || in.Start != s.Report.HarnessStart {
		return fmt.Errorf("%s harness report %s names pid %d started at %d as the harness; that pid %s", s.Mode, s.report, s.Report.HarnessPid, s.Report.HarnessStart, describePid(in, err))
	}
	for i, t := range s.Report.Tools[first:] {
		in, err := proctable.Lookup(t.Pid)
		if err != nil || in.Ppid != s.Report.HarnessPid || in.Start != t.Start {
			return fmt.Errorf("%s harness report %s names pid %d (started at %d) as tool sleep #%d; that pid %s, not a child of the harness pid %d started then",
				s.Mode, s.report, t.Pid, t.Start, first+i+1, describePid(in, err), s.Report.HarnessPid)
		}
	}
	return nil
}

// describePid says what the kernel shows of a pid a report names (err: Lookup's).
func describePid(in proctable.Info, err error) string {
	switch {
	case proctable.Gone(err):
		return "runs nothing"
	case err != nil:
		return fmt.Sprintf("cannot be read (%v)", err)
	}
	return fmt.Sprintf("has parent %d and started at %d", in.Ppid, in.Start)
}

// isTheHarness checks, from the kernel, that the pid the report names is the harness the kit
// handed out for this session: it runs the fixture harness's code (its content, whatever file it
// was started from), with this session's report path after --report in its arguments (a path no
// other session has). A report is the launcher's claim: a decoy at background class descending
// from the daemon is not the harness.
func (s *Session) isTheHarness() error {
	pid := s.Report.HarnessPid
	args, aerr := proctable.Args(pid)
	exe, eerr := proctable.Exe(pid)
	im, ierr := proctable.ImageOf(s.l.d.Harness)
	var runs bool
	if ierr == nil {
		runs, ierr = im.RunBy(pid)
	}
	if aerr == nil && eerr == nil && ierr == nil && runs && reportOf(args) == s.report {
		return nil
	}
	what := fmt.Sprintf("%v (executable %s)", args, exe)
	if aerr != nil || eerr != nil || ierr != nil {
		what = fmt.Sprintf("something the kit cannot read (%v)", errors.Join(aerr, eerr, ierr))
	}
	return fmt.Errorf("%s harness report %s claims pid %d is the harness; that pid runs %s, not the harness the kit handed out (%s --report %s)",
		s.Mode, s.report, pid, what, s.l.d.Harness, s.report)
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

func (s *Session) waitReport(done func(contract.HarnessReport) bool) error {
	start := time.Now()
	deadline, starvedStop := start.Add(s.l.timeout), start.Add(proctable.StarvedFactor*s.l.timeout)
	var lastStarved, lastLook time.Time
	var starvedBy string
	for {
		b, err := s.l.d.RunsAs.ReadClaim(s.report, maxReport)
		if err == nil {
			var r contract.HarnessReport
			if err := json.Unmarshal(b, &r); err != nil {
				return fmt.Errorf("%s harness report %s: %w", s.Mode, s.report, err)
			}
			if done(r) {
				s.Report = r
				return nil
			}
		} else if !errors.Is(err, os.ErrNotExist) {
			return err
		}
		// A harness (or its class step, or the tool it forks) that waits for a CPU or the disk is
		// background class under a foreground load: the promise kept, not a hang. From a little
		// before the timeout on, look at its processes now and then; while one was seen waiting
		// for a CPU or the disk within starvedWindow, wait on, up to a bound. A process that was
		// only seen asleep on something else fails at the timeout.
		now := time.Now()
		if now.After(deadline.Add(-starvedWindow)) && now.Sub(lastLook) >= 50*time.Millisecond {
			lastLook = now
			started, _ := proctable.Started(s.report, s.l.Roots()...) // unread: no starvation seen, the timeout holds
			if why := proctable.Starved(started...); why != "" {
				lastStarved, starvedBy = now, why
			}
		}
		if now.After(deadline) && (now.Sub(lastStarved) > starvedWindow || now.After(starvedStop)) {
			return s.noReport(start, starvedBy)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// maxReport bounds a harness report: a few pids and start times, read back from a file the
// launcher's processes could replace with anything.
const maxReport = 64 << 10

// starvedWindow is how recently a session's process must have been seen waiting for a CPU or
// the disk for the kit to keep waiting on it past the timeout.
const starvedWindow = 2 * time.Second

// noReport is the error for a report that never came, with what was started for it and, when
// one was seen waiting for a CPU or the disk, what the kit last read that said so.
func (s *Session) noReport(start time.Time, starvedBy string) error {
	started, err := proctable.Started(s.report, s.l.Roots()...)
	below, berr := proctable.Descendants(started...)
	if err = errors.Join(err, berr); err != nil {
		started = nil
	}
	why := "is the harness running?"
	if starvedBy != "" {
		why = fmt.Sprintf("its processes were starved of CPU or disk for %v, last seen %s;", time.Since(start).Round(time.Second), starvedBy)
	}
	what := proctable.DescribeAll(append(started, below...))
	if err != nil {
		what = "unknown: " + err.Error()
	}
	return fmt.Errorf("%s session: no harness report at %s within %v (%s processes started for it: %s%s; the launcher said: %q)",
		s.Mode, s.report, s.l.timeout, why, what, namedPids(s.Output, s.report), strings.TrimSpace(s.Output))
}

// pidRE finds the pids a launcher's answer names ("pid 42", "pid=42", "pid: 42").
var pidRE = regexp.MustCompile(`(?i)\bpid\b\W{0,2}(\d{1,9})\b`)

// namedPids says what became of each pid (a few at most) the launcher's answer to a session
// names: a pid it claimed that no longer runs exited before it became the harness, which tells a
// failed class step (or harness start) from a session that started nothing.
func namedPids(output, report string) string {
	var out []string
	for _, m := range pidRE.FindAllStringSubmatch(output, 3) {
		pid, err := strconv.Atoi(m[1])
		if err != nil || pid <= 0 {
			continue
		}
		args, aerr := proctable.Args(pid)
		alive, lerr := proctable.Alive(pid)
		switch {
		case aerr != nil && lerr != nil:
			out = append(out, fmt.Sprintf("the launcher named pid %d, which the kit cannot read (%v)", pid, errors.Join(aerr, lerr)))
		case aerr != nil && !alive:
			out = append(out, fmt.Sprintf("the launcher named pid %d, which is not running: it exited before it became the harness", pid))
		case aerr != nil:
			out = append(out, fmt.Sprintf("the launcher named pid %d, whose arguments the kit cannot read (%v)", pid, aerr))
		case reportOf(args) != report:
			out = append(out, fmt.Sprintf("the launcher named pid %d, which runs %q, not this session's harness", pid, args))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "; " + strings.Join(out, "; ")
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
