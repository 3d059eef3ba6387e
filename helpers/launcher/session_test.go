package launcher

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A session with no report tells a pid the launcher named that is gone (a class step that failed
// before its exec) from one that runs something else, and says nothing of an answer with no pid.
func TestNamedPidsSaysWhatBecameOfEachPid(t *testing.T) {
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dead := gone.ProcessState.Pid()
	got := namedPids(fmt.Sprintf("harness pid %d class background", dead), "/x/report-1.json")
	want := fmt.Sprintf("the launcher named pid %d, which is not running: it exited before it became the harness", dead)
	if !strings.Contains(got, want) {
		t.Errorf("a pid that exited: got %q, want it to contain %q", got, want)
	}

	self := os.Getpid()
	got = namedPids(fmt.Sprintf("started: pid=%d", self), "/x/report-1.json")
	if !strings.Contains(got, fmt.Sprintf("the launcher named pid %d, which runs", self)) || !strings.Contains(got, "not this session's harness") {
		t.Errorf("a pid that runs something else: got %q", got)
	}
	if got := namedPids("session started, class background", "/x/report-1.json"); got != "" {
		t.Errorf("an answer naming no pid: got %q, want nothing", got)
	}
}
