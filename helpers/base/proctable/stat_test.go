package proctable

import (
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/classproof/classproof/fixtures/ps"
)

func TestParseStat(t *testing.T) {
	st, err := ParseStat(ps.MustRead(t, "linux-stat-idle.txt"))
	if err != nil || st.Policy != 5 || st.Session != 1050 || st.State != 'S' || st.Start == 0 || st.Ppid == 0 || st.Flags != 4194304 || st.Exiting() {
		t.Fatalf("idle stat: %+v err %v", st, err)
	}
	st, err = ParseStat(ps.MustRead(t, "linux-stat-normal.txt"))
	if err != nil || st.Policy != 0 {
		t.Fatalf("normal stat: %+v err %v", st, err)
	}
	// A comm with spaces and ')' (go-ps misparses this): fields count from the last ')'.
	tricky := strings.Replace(string(ps.MustRead(t, "linux-stat-idle.txt")), "(sleep)", "(a) b) c)", 1)
	if st, err := ParseStat([]byte(tricky)); err != nil || st.Policy != 5 {
		t.Fatalf("tricky comm: %+v err %v", st, err)
	}
	if _, err := ParseStat([]byte("12 (x) S 1 2")); err == nil {
		t.Error("short stat accepted")
	}
}

func TestParseProcArgs(t *testing.T) {
	b := []byte{3, 0, 0, 0}
	b = append(b, "/usr/bin/harness\x00\x00\x00\x00harness\x00--report\x00/tmp/cp1/report-1.json\x00PATH=/bin\x00"...)
	args, err := parseProcArgs(b)
	if err != nil || strings.Join(args, " ") != "harness --report /tmp/cp1/report-1.json" {
		t.Errorf("got %q %v", args, err)
	}
	if _, err := parseProcArgs([]byte{1}); err == nil {
		t.Error("a short buffer accepted")
	}
}

// A process that shows no arguments is an error, never [""]: mid-exec, the kit's own tool would
// otherwise read as a stranger (the bench once counted one load short that way).
func TestAnEmptyCmdlineIsNoArguments(t *testing.T) {
	if _, err := parseCmdline(7, nil); !errors.Is(err, ErrNoArgs) || !strings.Contains(err.Error(), "pid 7") {
		t.Errorf("an empty cmdline: %v, want ErrNoArgs naming pid 7", err)
	}
	args, err := parseCmdline(7, []byte("probe\x00load\x00\x00"))
	if err != nil || strings.Join(args, "|") != "probe|load|" {
		t.Errorf("got %q %v", args, err)
	}
}

// macOS's Exe reads proc_pidpath's buffer: the kernel's path of the executable's vnode, then NULs
// (XNU bsd/kern/proc_info.c proc_pidpathinfo: vn_getpath into a zeroed buffer). A process may
// rewrite its own kern.procargs2 strings, never that path.
func TestParsePidPath(t *testing.T) {
	buf := make([]byte, 4096)
	copy(buf, "/private/var/folders/x/classproof/harness")
	if exe, err := parsePidPath(buf); err != nil || exe != "/private/var/folders/x/classproof/harness" {
		t.Errorf("path %q %v", exe, err)
	}
	if _, err := parsePidPath(make([]byte, 4096)); err == nil {
		t.Error("an empty path accepted")
	}
	if _, err := parsePidPath(append(make([]byte, 0, 8), "harness"...)); err == nil {
		t.Error("a relative path accepted")
	}
}

// Linux: a process asleep is not starved; one with a thread on a run queue is, and the message
// names the thread and the state read.
func TestStarvedSaysWhatWasRead(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("this reads /proc; darwin's decision is TestTaskInfoDecidesStarvation")
	}
	asleep := exec.Command("sleep", "30")
	busy := exec.Command("sh", "-c", "while :; do :; done")
	for _, c := range []*exec.Cmd{asleep, busy} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		defer func(c *exec.Cmd) { _ = c.Process.Kill(); _ = c.Wait() }(c)
	}
	var why string
	for i := 0; i < 200 && why == ""; i++ {
		why = Starved(busy.Process.Pid)
		time.Sleep(10 * time.Millisecond)
	}
	if want := fmt.Sprintf("pid %d thread %d: state R", busy.Process.Pid, busy.Process.Pid); !strings.HasPrefix(why, want) {
		t.Errorf("a busy loop: Starved said %q, want it to start %q", why, want)
	}
	for i := 0; i < 20; i++ {
		if why := Starved(asleep.Process.Pid); why != "" {
			t.Fatalf("a sleeping process called starved: %q", why)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
