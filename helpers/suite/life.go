package suite

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"

	"github.com/classproof/classproof/helpers/lane"
	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/oracle"
)

// LifeWindow is how long WatchLife watches a session, before the time scale: the seed's "no
// running process is reniced" and "no raise for the focused chat" hold for a harness's whole
// life, and a launcher that raises a session "a while" after its start (a focus raise, a budget
// check) does it within seconds. LifeWindowTitle says it in spec titles, unscaled, so a title
// does not change with the machine.
const (
	LifeWindow      = 3 * time.Second
	LifeWindowTitle = "their first 3 s"
	lifePoll        = 100 * time.Millisecond
)

// Long marks a spec that waits for seconds (the whole-life watch, many sessions at once): Ginkgo
// starts it before the others of its suite, so that with --procs > 1 the rest run beside it
// instead of the suite waiting for it at its end. Order only: what the spec checks is unchanged.
var Long = SpecPriority(1)

// WatchLife samples the sessions' harnesses and tools with the oracle every 100 ms for the
// first half of the (scaled) LifeWindow, then has each harness start one more tool and samples
// them all, late tools included, for the second half. It fails on the first sample that m
// refuses, with that sample's receipt and when it came.
func WatchLife(sessions []*launcher.Session, m types.GomegaMatcher) {
	GinkgoHelper()
	window := lane.Scale(LifeWindow)
	start := time.Now()
	var subjects []oracle.Subject
	for _, s := range sessions {
		subjects = append(subjects, s.Subjects()...)
	}
	sample := func() ([]oracle.Observation, error) {
		defer timed("observe", time.Now())
		if err := live.account(); err != nil {
			return nil, err
		}
		return oracle.Observe(subjects...)
	}
	when := func() string {
		return fmt.Sprintf("sampled every %v over a %v window, %v in", lifePoll, window, time.Since(start).Round(time.Millisecond))
	}
	Consistently(sample).WithTimeout(window/2).WithPolling(lifePoll).Should(m, when)
	for _, s := range sessions {
		late, err := s.StartLateTool()
		Must(err, "starting a late tool in the "+string(s.Mode)+" harness")
		subjects = append(subjects, late)
	}
	// The rest of the window, and a few samples of the late tools even when starting them ate it.
	rest := max(window-time.Since(start), 3*lifePoll)
	Consistently(sample).WithTimeout(rest).WithPolling(lifePoll).Should(m, when)
}
