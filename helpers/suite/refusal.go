package suite

import (
	"errors"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/classproof/classproof/helpers/base/label"
	"github.com/classproof/classproof/helpers/base/proctable"
	"github.com/classproof/classproof/helpers/launcher"
)

// ExpectRefused checks a refused session: the promise every launcher keeps (a non-zero exit, a
// message that is not empty, and nothing started), then that the refusal mentions each of the
// given strings. The mentions are a convention: a spec that passes any carries the matching
// launcher.NamesLabel labels, so it runs only on a target that declares them. ProfileName stands
// for the refused profile's name and DaemonSource for the target's pattern for the daemon's env.
// tried says what the session asked for (the path, the source and the value), so a launcher that
// took it reads as a receipt: what was tried, and that it started.
func ExpectRefused(l *launcher.Instance, tried string, err error, mention ...string) {
	GinkgoHelper()
	var se *launcher.SessionError
	if !errors.As(err, &se) {
		if err == nil {
			Fail(fmt.Sprintf("expected the launcher to refuse %s: it started the session (its command exited 0)", tried))
		}
		Fail(fmt.Sprintf("expected the launcher to refuse %s, got: %v", tried, err))
	}
	Expect(strings.TrimSpace(se.Output)).NotTo(BeEmpty(), "a refusal says why: %s exited %v and printed nothing", strings.Join(se.Argv, " "), se.Err)
	for _, m := range mention {
		switch m {
		case ProfileName:
			Expect(se.Output).To(ContainSubstring(se.Profile), "the refusal names the profile %q", se.Profile)
		case DaemonSource:
			p := l.Conventions().RefusalSources["daemon"]
			Expect(se.Output).To(MatchRegexp(p), "the refusal names the daemon's env as its source (conventions.refusal_sources.daemon %q)", p)
		default:
			Expect(se.Output).To(ContainSubstring(m), "the refusal names %q", m)
		}
	}
	ExpectNothingStarted(l, se.Report, "a refused session")
}

// ExpectNothingStarted checks that no process the launcher started carries marker (a refused
// session's or spec's report path) in its arguments: nothing was started for it. A launcher's
// own helper processes do not count.
func ExpectNothingStarted(l *launcher.Instance, marker, what string) {
	GinkgoHelper()
	started, err := proctable.Started(marker, l.Roots()...)
	Must(err, "reading what the launcher started for "+what)
	Expect(started).To(BeEmpty(), "%s starts nothing, yet the launcher started processes for it (their arguments name %s)", what, marker)
}

// Mentions in ExpectRefused that stand for a target's own words.
const (
	ProfileName  = "{profile name}"
	DaemonSource = "{daemon source}"
)

// RefusalNames labels a spec that checks what a refusal names (a convention): it runs only on a target
// whose manifest declares every one of these kinds in conventions.refusals_name.
func RefusalNames(kinds ...string) Labels {
	var l Labels
	for _, k := range kinds {
		l = append(l, label.Names(k))
	}
	return l
}

// ForMode labels a spec for a session mode: a hosted one needs the target's hosted sessions.
func ForMode(m launcher.Mode) Labels {
	if m == launcher.Hosted {
		return Label(label.NeedsHosted)
	}
	return Label()
}

// ExpectLaunchRefused starts the target as Launch does and checks that its daemon refused to
// start: it exited before it was ready, with a non-zero code and a message that mentions each of
// the given strings (a convention spec passes some; see ExpectRefused).
func (e *Env) ExpectLaunchRefused(opts launcher.LaunchOptions, mention ...string) {
	GinkgoHelper()
	_, err := e.launch(opts)
	var exited *launcher.ExitedError
	if !errors.As(err, &exited) || exited.Role != "daemon" {
		Fail(fmt.Sprintf("expected the daemon to refuse to start and exit, got: %v", err))
	}
	Expect(exited.Code).NotTo(BeZero(), "a refusal to start exits non-zero: %s", exited)
	Expect(strings.TrimSpace(exited.Output)).NotTo(BeEmpty(), "a refusal to start says why: the daemon (pid %d) exited %d and printed nothing", exited.Pid, exited.Code)
	for _, m := range mention {
		Expect(exited.Output).To(ContainSubstring(m), "the daemon's refusal to start names %q", m)
	}
}
