package runner

import (
	"errors"
	"strings"
	"testing"
)

// A run that ended with no report says how Ginkgo ended and what it printed last.
func TestARunWithNoReportSaysWhyItStopped(t *testing.T) {
	out := strings.Repeat("line\n", 40) + "fatal error: runtime: out of memory\n"
	why := stoppedBecause(&Result{GinkgoErr: errors.New("signal: killed")}, out)
	for _, want := range []string{"ginkgo signal: killed", "its last output:", "fatal error: runtime: out of memory"} {
		if !strings.Contains(why, want) {
			t.Errorf("%q lacks %q", why, want)
		}
	}
	if n := strings.Count(why, "line"); n > 12 {
		t.Errorf("%d lines of output quoted; the last 12 say enough", n)
	}
	if why := stoppedBecause(&Result{Interrupted: true}, ""); !strings.Contains(why, "after an interrupt") {
		t.Errorf("an interrupted run: %q", why)
	}
}
