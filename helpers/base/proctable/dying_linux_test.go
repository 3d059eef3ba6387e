package proctable

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/classproof/classproof/fixtures/ps"
)

// A task is on its way out from the moment do_exit sets PF_EXITING (field 9), and while it is a
// zombie or dead; a flag word without it is no exit, whatever else it holds.
func TestStatExiting(t *testing.T) {
	idle := string(ps.MustRead(t, "linux-stat-idle.txt")) // S, flags 4194304 (PF_RANDOMIZE)
	for _, c := range []struct {
		from, to string
		want     bool
	}{
		{"", "", false},
		{" 4194304 ", " 4194308 ", true}, // | PF_EXITING
		{" 4194304 ", " 4194312 ", false},
		{") S ", ") Z ", true},
		{") S ", ") X ", true},
		{") S ", ") D ", false},
	} {
		st, err := ParseStat([]byte(strings.Replace(idle, c.from, c.to, 1)))
		if err != nil || st.Exiting() != c.want {
			t.Errorf("%q for %q: Exiting %v (%+v, %v), want %v", c.to, c.from, st.Exiting(), st, err, c.want)
		}
	}
}

// A SIGKILL pending in the thread's set or the process's is dying; another signal is not.
func TestKillPending(t *testing.T) {
	for status, want := range map[string]bool{
		"Name:\tx\nSigPnd:\t0000000000000000\nShdPnd:\t0000000000000000\n": false,
		"Name:\tx\nSigPnd:\t0000000000000100\nShdPnd:\t0000000000000000\n": true, // bit 8: signal 9
		"Name:\tx\nSigPnd:\t0000000000000000\nShdPnd:\t0000000000000100\n": true,
		"Name:\tx\nSigPnd:\t0000000000004000\nShdPnd:\t0000000000000002\n": false, // SIGTERM, SIGINT
	} {
		if got := killPending([]byte(status)); got != want {
			t.Errorf("killPending(%q) = %v, want %v", status, got, want)
		}
	}
}

// Exiting of real processes: this one runs, a child not yet waited for is a zombie, a reaped one
// is gone.
func TestExitingOfLiveDeadAndGone(t *testing.T) {
	if Exiting(os.Getpid()) {
		t.Fatal("this test process reads as exiting")
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if Exiting(pid) {
		t.Errorf("a sleeping child, pid %d, reads as exiting", pid)
	}
	_ = cmd.Process.Kill()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); {
		if in, ok := Lookup(pid); !ok || in.Zombie {
			break
		}
	}
	if !Exiting(pid) {
		t.Errorf("pid %d, a zombie, does not read as exiting", pid)
	}
	_ = cmd.Wait()
	if !Exiting(pid) {
		t.Errorf("pid %d, reaped, does not read as exiting", pid)
	}
}
