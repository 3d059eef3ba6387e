//go:build e2e

package runner_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/classproof/classproof/helpers/runner"
)

// A focus on the whole-run spec, written as the kit writes one (runner.FocusOn: a space before the
// spec's text, as Ginkgo puts the suite's description there), starts the sessions that spec
// judges: the suites once matched the focus without the description, started none, and the spec
// failed in its own body ("no sessions were started"), a catch a kill matrix would have counted.
func TestAFocusOnTheWholeRunSpecStartsItsSessions(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and runs a suite")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the linux-idle lane's whole-run spec")
	}
	spec := "the whole run of the cpuclass suite on Linux, idle mode (SCHED_IDLE + I/O idle) keeps the direct and the hosted session started at the suite's beginning, and a tool each starts at its end, at background class until the suite's end"
	code, log, _ := runCLI(t, nil, "run", "--suite", "./suites/cpuclass", "--focus", runner.FocusOn([]string{spec}), "--out", t.TempDir())
	if code != 0 || !strings.Contains(log, "classproof: 1 passed, 0 failed") {
		t.Errorf("the whole-run spec, focused as FocusOn writes it: exit %d:\n%s", code, log)
	}
}
