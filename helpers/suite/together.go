package suite

import (
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/classproof/classproof/helpers/launcher"
)

// Together asks for every session at once, a burst however slowly the launcher's client starts
// (launcher.StartTogether: every client held, then all let go at one instant), and fails the spec
// naming each one that did not start, with the launcher's words.
func (e *Env) Together(asks ...launcher.Ask) []*launcher.Session {
	GinkgoHelper()
	t := time.Now()
	sessions, errs := launcher.StartTogether(asks)
	timed("session", t)
	var failed []string
	for i, err := range errs {
		if err != nil {
			failed = append(failed, fmt.Sprintf("session %d of %d (%s): %v", i+1, len(asks), asks[i].Mode, err))
		}
	}
	if len(failed) > 0 {
		Fail(fmt.Sprintf("every one of the %d sessions asked for at once starts; %d did not:\n%s", len(asks), len(failed), strings.Join(failed, "\n")))
	}
	return sessions
}
