package proc

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A command that exited left a process in its group (a translator's `rewriter &`): EndGroup
// kills it before the caller goes on, and returns only once it is gone.
func TestEndGroupKillsWhatAnExitedCommandLeft(t *testing.T) {
	subreaper(t)
	cmd := exec.Command("sh", "-c", "sleep 600 </dev/null >/dev/null 2>&1 & echo $!")
	s := &Set{}
	if err := s.Contain(cmd); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	left, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("sh printed %q, not the pid of the sleep it left", out)
	}
	t.Cleanup(func() { _ = s.KillAll(5 * time.Second) })
	s.TrackGroup("sh (left running)", cmd.Process.Pid)
	if !alive(left) {
		t.Fatalf("sleep pid %d, left by sh pid %d, not alive before EndGroup", left, cmd.Process.Pid)
	}
	if err := s.EndGroup("sh", cmd.Process.Pid, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if alive(left) {
		t.Errorf("sleep pid %d, left in sh's group %d, still alive after EndGroup returned nil", left, cmd.Process.Pid)
	}
}
