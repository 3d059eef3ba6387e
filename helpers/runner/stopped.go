package runner

import (
	"fmt"
	"os"
	"strings"

	"github.com/classproof/classproof/helpers/oracle"
)

// callerMoved reads this process's class again after the suites and says, as a problem of the
// run, how it changed since before them. The lane runs in a session of its own (ginkgoCommand),
// so a launcher that writes the autogroup it inherits reaches the lane, not us; one that reaches
// further (an ancestor's /proc/PID/autogroup) changes the caller's class past the run's end, and
// the run says so rather than restoring anything behind the caller's back.
func callerMoved(before oracle.Observation) []string {
	now, err := oracle.ObserveOne(before.Role, os.Getpid())
	if err != nil {
		return []string{"reading the caller's class after the run: " + err.Error()}
	}
	if same, why := oracle.SameSettings(now, before); !same {
		return []string{fmt.Sprintf("the caller's own class changed during the run: %s -- %s; before the run: %s. "+
			"classproof restored nothing: a process this run started reached outside the lane's session", now, why, before.Summary())}
	}
	return nil
}

// stoppedBecause says why Ginkgo ended without a report: how it exited (a status, or the signal
// that killed it: out of memory, a kill from outside) and the last lines it printed.
func stoppedBecause(res *Result, lastOutput string) string {
	how := "ginkgo exited 0"
	if res.GinkgoErr != nil {
		how = "ginkgo " + res.GinkgoErr.Error()
	}
	if res.Interrupted {
		how += ", after an interrupt (Ctrl-C, SIGTERM or --timeout)"
	}
	if strings.TrimSpace(lastOutput) == "" {
		return how + "; its last output is just above"
	}
	lines := strings.Split(strings.TrimRight(lastOutput, "\n"), "\n")
	if len(lines) > 12 {
		lines = lines[len(lines)-12:]
	}
	return fmt.Sprintf("%s; its last output:\n%s", how, strings.Join(lines, "\n"))
}
