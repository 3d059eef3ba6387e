package resolve_test

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/classproof/classproof/helpers/base/label"
	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/oracle"
	"github.com/classproof/classproof/helpers/suite"
)

// The kit's names for where a class came from; a manifest maps them to its explain output.
const (
	fromProfile = "profile"
	fromDaemon  = "daemon"
	fromConfig  = "config"
	fromDefault = "default"
)

// expectResolved checks the class a profile gets, every way this target can show it: through
// explain (class and source) where the manifest declares it, and always through the class of a
// started harness and its tool (on a target that ignores the class here, that is the control's
// class whatever was resolved, so explain is what proves the order there).
func expectResolved(l *launcher.Instance, control oracle.Observation, profileEnv map[string]string, want, source string) {
	GinkgoHelper()
	expectResolvedOn(l, control, launcher.Direct, profileEnv, want, source)
}

// expectResolvedOn is expectResolved through a session on the given path.
func expectResolvedOn(l *launcher.Instance, control oracle.Observation, mode launcher.Mode, profileEnv map[string]string, want, source string) {
	GinkgoHelper()
	expectResolvedAs(l, control, mode, "", profileEnv, want, source)
}

// expectResolvedAs is expectResolvedOn for a profile of the given name ("": one of its own), which
// a spec may reuse (launcher.Instance.StartSessionAs).
func expectResolvedAs(l *launcher.Instance, control oracle.Observation, mode launcher.Mode, name string, profileEnv map[string]string, want, source string) {
	GinkgoHelper()
	if env.Driver.Manifest.Explain != nil {
		start := time.Now()
		x, err := l.Explain(profileEnv)
		AddReportEntry("through explain", time.Since(start), ReportEntryVisibilityNever)
		suite.Must(err)
		Expect(x.Class).To(Equal(want), "explain said %q", x.Output)
		if pattern := env.Driver.SourcePattern(source); pattern != "" {
			Expect(x.Source).To(MatchRegexp(pattern), "explain names where the class came from; expected the %s", source)
		}
	} else if env.Platform.Meaning == oracle.Ignored {
		// Labelled reads-resolved: a lane leaves it out for such a target, with the reason.
		Fail("this target ignores the class on this OS and declares no explain: nothing can show what it resolved (this spec is labelled " + label.ReadsResolved + ", which its lane should have left out)")
	}
	start := time.Now()
	var s *launcher.Session
	if name == "" {
		s = env.Session(l, mode, profileEnv)
	} else {
		var err error
		s, err = l.StartSessionAs(mode, name, profileEnv)
		suite.Must(err, fmt.Sprintf("starting a %s session of profile %s", mode, name))
	}
	obs := suite.Observe(s.Subjects()...)
	AddReportEntry("through the class", time.Since(start), ReportEntryVisibilityNever)
	if want == "background" {
		Expect(obs).To(suite.BeAtBackground(env.Platform.Meaning, control))
	} else {
		Expect(obs).To(suite.HaveControlClass(control))
	}
}
