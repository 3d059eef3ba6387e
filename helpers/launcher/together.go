package launcher

import (
	"io"
	"os"
	"sync"
	"time"
)

// Ask is one session of a burst (StartTogether): the instance asked, the path, the profile env.
type Ask struct {
	L          *Instance
	Mode       Mode
	ProfileEnv map[string]string
}

// heldPrefix holds a client before it runs the manifest's session command: a shell closes fd 4
// (the kit reads that as "held"), waits until fd 3 reads end of file (the kit closes the other
// end: the release), closes it and execs the command as the manifest wrote it. The command starts
// as it would from the kit, with fd 3 and 4 closed.
var heldPrefix = []string{"sh", "-c", `exec 4>&-; read -r held <&3; exec 3<&-; exec "$@"`, "classproof-held"}

// StartTogether asks for every session at once: a launcher that keeps one session's state where
// another's can reach it (a class in a field its threads share) meets them side by side, however
// slowly its client starts (a shell, jq and a JVM each). Every client process is started first,
// held before it runs the manifest's session command (heldPrefix); once all are held, or the
// longest timeout of the instances has passed, one close of a pipe lets them all go at the same
// instant. Each session is then waited for as StartSession waits. It gives a session or an error
// for each ask, in order; a refusal is a *SessionError.
func StartTogether(asks []Ask) ([]*Session, []error) {
	sessions, errs := make([]*Session, len(asks)), make([]error, len(asks))
	release, hold, err := os.Pipe()
	if err != nil {
		return sessions, fill(errs, err)
	}
	held, holding, err := os.Pipe()
	if err != nil {
		release.Close()
		hold.Close()
		return sessions, fill(errs, err)
	}
	pend, started := make([]*pending, len(asks)), make([]*asked, len(asks))
	var wait time.Duration
	for i, a := range asks {
		wait = max(wait, a.L.timeout)
		if pend[i], errs[i] = a.L.prepareSession(a.Mode, "", a.ProfileEnv); errs[i] == nil {
			started[i], errs[i] = pend[i].start([]*os.File{release, holding}, heldPrefix...)
		}
	}
	// Only the clients hold these ends now: held reads end of file once each has closed its
	// copy of holding (or died before), and the clients' reads end once hold is closed.
	release.Close()
	holding.Close()
	_ = held.SetReadDeadline(time.Now().Add(wait))
	_, _ = io.Copy(io.Discard, held) // past the deadline, they go as they are
	held.Close()
	hold.Close() // the release
	var wg sync.WaitGroup
	for i, p := range pend {
		if p == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sessions[i], errs[i] = p.finish(started[i], errs[i])
		}()
	}
	wg.Wait()
	return sessions, errs
}

// fill sets every entry of errs to err and returns errs.
func fill(errs []error, err error) []error {
	for i := range errs {
		errs[i] = err
	}
	return errs
}

// pending is a session asked for: its profile written, its client not yet answered.
type pending struct {
	l                     *Instance
	mode                  Mode
	name, profile, report string
}

// prepareSession writes the profile of a session on the given path.
func (l *Instance) prepareSession(mode Mode, name string, profileEnv map[string]string, harnessArgs ...string) (*pending, error) {
	profile, name, report, err := l.writeProfile(name, profileEnv, harnessArgs...)
	if err != nil {
		return nil, err
	}
	return &pending{l: l, mode: mode, name: name, profile: profile, report: report}, nil
}

// start starts the session command, handing it files from fd 3 on, after prefix (the kit's own
// words, never expanded).
func (p *pending) start(files []*os.File, prefix ...string) (*asked, error) {
	tmpl := p.l.d.Manifest.Session.Direct
	if p.mode == Hosted {
		tmpl = p.l.d.Manifest.Session.Hosted
	}
	return p.l.begin(At{Run: "session." + string(p.mode)}, Command{Run: tmpl}, map[string]string{"profile": p.profile}, files, prefix...)
}

// finish waits for the session command start started (a refusal comes back as *SessionError),
// then for the harness's report, which it checks and tracks.
func (p *pending) finish(a *asked, err error) (*Session, error) {
	argv, out := a.argv, ""
	if err == nil {
		argv, out, err = a.end()
	}
	if err != nil {
		return nil, &SessionError{Mode: p.mode, Profile: p.name, Report: p.report, Argv: argv, Output: out, Err: err}
	}
	s := &Session{Mode: p.mode, Profile: p.name, Output: out, report: p.report, l: p.l}
	if err := s.waitReport(func(r Report) bool { return len(r.Tools) > 0 }); err != nil {
		return nil, err
	}
	if err := s.verify(0); err != nil {
		return nil, err
	}
	s.track()
	return s, nil
}
