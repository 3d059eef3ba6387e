package launcher

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/manifest"
)

// Ask is one session of a burst (StartTogether): the instance asked, the path, the profile env.
type Ask struct {
	L          *Instance
	Mode       Mode
	ProfileEnv map[string]string
}

// heldPrefix holds a client before it runs the manifest's session command: a shell closes fd 4
// (the kit reads that as "held"), waits until fd 3 reads end of file (the kit closes the other
// end: the release), closes it and execs what follows (heldArgv). A shell is there on Linux and
// macOS alike, and nothing of it reaches the session command: env(1) runs that.
var heldPrefix = []string{"sh", "-c", `exec 4>&-; read -r held <&3; exec 3<&-; exec "$@"`, "classproof-held"}

// heldArgv is what a burst's client runs for argv: heldPrefix, then env(1), absolute so that no
// PATH chooses it, which execs the very program a single session runs (start's, never looked up
// again on the env's PATH, which may hold what the kit's lookup skips) with exactly the env a
// single session gets (exec's, deduplicated), none of the holding shell's own (dash exports PWD,
// bash as sh SHLVL and _; macOS's protected sh would also drop DYLD_*). One difference stays: a
// bare name's argv[0] is the resolved path (no portable sh sets argv[0]).
func heldArgv(role string, argv, env []string, c *confined) ([]string, error) {
	bin, err := program(role, argv, c)
	if err != nil {
		return nil, err
	}
	out := append(append([]string(nil), heldPrefix...), "/usr/bin/env", "-i", "--")
	for _, kv := range (&exec.Cmd{Env: env}).Environ() {
		if strings.Index(kv, "=") <= 0 {
			return nil, fmt.Errorf("holding %s %q for a burst: env entry %q has no NAME=, which env(1) cannot pass on; a single session's env takes only NAME=VALUE", role, strings.Join(argv, " "), kv)
		}
		out = append(out, kv)
	}
	if strings.Contains(bin, "=") {
		return nil, fmt.Errorf("holding %s %q for a burst: its program %s holds \"=\", which env(1) takes for a NAME=VALUE; give the program a path without \"=\"", role, strings.Join(argv, " "), bin)
	}
	return append(append(out, bin), argv[1:]...), nil
}

// heldStart is how a burst's client is started (StartTogether): the kit's held pipes, from fd 3 on,
// and the release, from which the client's time counts.
type heldStart struct {
	files    []*os.File
	released <-chan struct{}
}

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
	released := make(chan struct{})
	h := &heldStart{files: []*os.File{release, holding}, released: released}
	var wait time.Duration
	for i, a := range asks {
		wait = max(wait, a.L.timeout)
		if pend[i], errs[i] = a.L.prepareSession(a.Mode, "", a.ProfileEnv); errs[i] == nil {
			started[i], errs[i] = pend[i].start(h)
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
	close(released)
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

// start starts the session command, held for a burst where h is not nil.
func (p *pending) start(h *heldStart) (*asked, error) {
	tmpl := p.l.d.Manifest.Session.Direct
	if p.mode == Hosted {
		tmpl = p.l.d.Manifest.Session.Hosted
	}
	return p.l.begin(manifest.At{Run: "session." + string(p.mode)}, manifest.Command{Run: tmpl}, map[string]string{"profile": p.profile}, h)
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
	if err := s.waitReport(func(r contract.HarnessReport) bool { return len(r.Tools) > 0 }); err != nil {
		return nil, err
	}
	if err := s.verify(0); err != nil {
		return nil, err
	}
	s.track()
	return s, nil
}
