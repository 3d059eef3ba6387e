package proc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/proctable"
)

// subreaper makes the test process the reaper of its orphans for t only: with the flag left on,
// TestASignalGoesOnlyToTheReportedProcess, whose orphan init must adopt, skipped in every run of
// the whole package.
func subreaper(t *testing.T) {
	t.Helper()
	if err := BecomeSubreaper(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = endSubreaper() })
}

// A group leader (sh) with a child (sleep): killing the set kills both, tracked or not.
func TestKillAllKillsTheGroup(t *testing.T) {
	subreaper(t)
	cmd := exec.Command("sh", "-c", "sleep 600 & echo $!; wait")
	s := &Set{}
	if err := s.Contain(cmd); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go cmd.Wait()
	buf := make([]byte, 32)
	n, _ := out.Read(buf)
	var child int
	for _, c := range strings.TrimSpace(string(buf[:n])) {
		child = child*10 + int(c-'0')
	}
	s.TrackOwned("sh", cmd.Process.Pid)
	if !alive(child) {
		t.Fatalf("child %d not alive before the kill", child)
	}
	if err := s.KillAll(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	if alive(child) {
		t.Errorf("untracked child %d of the group survived", child)
	}
}

func TestSweepKillsWhatTheLedgerNamesAndSaysSo(t *testing.T) {
	ledger := filepath.Join(t.TempDir(), "ledger")
	t.Setenv(contract.LedgerEnv, ledger)
	cmd := exec.Command("sleep", "600")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go cmd.Wait()
	NewSet().Track("leaky sleep", cmd.Process.Pid)
	leaks, refused, err := Sweep(ledger, "", nil, -1)
	if err != nil || len(leaks) != 1 || !strings.Contains(leaks[0], "leaky sleep pid") || len(refused) != 0 {
		t.Fatalf("leaks %v refused %v err %v", leaks, refused, err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for alive(cmd.Process.Pid) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if alive(cmd.Process.Pid) {
		t.Fatal("swept process still alive")
	}
	if leaks, _, _ := Sweep(ledger, "", nil, -1); len(leaks) != 0 {
		t.Errorf("a dead process reported again: %v", leaks)
	}
}

// onPid starts a `sleep 600` that the kernel gives the wanted pid (root only: ns_last_pid), to
// stand for a stranger that took a pid the kit once tracked. Pids wrap within minutes on a busy
// machine; this makes the wrap happen on purpose.
func onPid(t *testing.T, pid int, was uint64) *exec.Cmd {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root, to choose the next pid through /proc/sys/kernel/ns_last_pid")
	}
	for try := 0; try < 200; try++ {
		if err := os.WriteFile("/proc/sys/kernel/ns_last_pid", []byte(strconv.Itoa(pid-1)), 0); err != nil {
			t.Skip("cannot choose the next pid: ", err)
		}
		cmd := exec.Command("sleep", "600")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if in, _ := proctable.Lookup(cmd.Process.Pid); cmd.Process.Pid == pid && in.Start != was {
			t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			return cmd
		}
		cmd.Process.Kill()
		cmd.Wait()
	}
	t.Skipf("another process kept taking pid %d", pid)
	return nil
}

// gone starts a process, kills it and reaps it: its pid is free for a stranger.
func gone(t *testing.T) (int, uint64) {
	t.Helper()
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	in, _ := proctable.Lookup(cmd.Process.Pid)
	cmd.Process.Kill()
	cmd.Wait()
	return cmd.Process.Pid, in.Start
}

// A spec's cleanup must not wait for, nor kill, a process that took the pid of one it tracked.
func TestCleanupLeavesAStrangerOnATrackedPid(t *testing.T) {
	for _, c := range []struct {
		name  string
		track func(s *Set, pid int)
	}{
		// The control: tracked while alive, reaped by its own Wait, its pid then reused.
		{"tracked alive, then reaped", nil},
		// A tool the harness reported, which exited before the kit tracked it.
		{"gone when tracked", func(s *Set, pid int) { s.Track("tool sleep", pid) }},
		// A harness that reported its pid and start time, then died before the kit read them.
		{"reported with another start time", func(s *Set, pid int) { s.TrackStarted("harness", pid, 1) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &Set{}
			var pid int
			var was uint64
			if c.track == nil {
				cmd := exec.Command("sleep", "600")
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				s.TrackOwned("control sleep", cmd.Process.Pid)
				was = s.Entries()[0].Start
				cmd.Process.Kill()
				cmd.Wait()
				pid = cmd.Process.Pid
			} else {
				pid, was = gone(t)
			}
			if c.name == "gone when tracked" {
				c.track(s, pid)
			}
			stranger := onPid(t, pid, was)
			if c.name == "reported with another start time" {
				c.track(s, pid)
			}
			began := time.Now()
			if err := s.KillAll(10 * time.Second); err != nil {
				t.Fatalf("cleanup waited on the stranger: %v", err)
			}
			if took := time.Since(began); took > 2*time.Second {
				t.Errorf("cleanup took %v with nothing of its own alive", took)
			}
			if err := stranger.Process.Signal(syscall.Signal(0)); err != nil || !alive(pid) {
				t.Errorf("the stranger on pid %d was killed by a cleanup that never started it", pid)
			}
		})
	}
}

// The ledger is keyed on pid and start time: a sweep never kills a process that took a recorded
// pid, even when an earlier line for that pid has no start time.
func TestSweepLeavesAStrangerOnARecordedPid(t *testing.T) {
	ledger := filepath.Join(t.TempDir(), "ledger")
	pid, was := gone(t)
	stranger := onPid(t, pid, was)
	lines := fmt.Sprintf(`{"role":"harness (self-recorded)","pid":%d}`+"\n"+`{"role":"harness","pid":%d,"start":1}`+"\n", pid, pid)
	if err := os.WriteFile(ledger, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	leaks, _, err := Sweep(ledger, "", nil, -1)
	if err != nil || len(leaks) != 0 {
		t.Errorf("sweep reported %v (err %v) for a stranger", leaks, err)
	}
	if err := stranger.Process.Signal(syscall.Signal(0)); err != nil || !alive(pid) {
		t.Errorf("the sweep killed the stranger on pid %d", pid)
	}
}

// A ledger is trusted only when it is ours alone: a symlink is never written through, and a
// ledger another user could have planted is not swept.
func TestLedgerIsNotTrustedWhenShared(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("precious\n"), 0o600)
	link := filepath.Join(dir, "ledger")
	os.Symlink(victim, link)
	s := &Set{ledger: link}
	s.Track("self", os.Getpid())
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Errorf("the ledger symlink was written through: %q", b)
	}
	if _, _, err := Sweep(link, "", nil, -1); err == nil || !strings.Contains(err.Error(), "is a symlink") {
		t.Errorf("a symlinked ledger was swept: %v", err)
	}
	open := filepath.Join(dir, "open")
	os.WriteFile(open, nil, 0o666)
	os.Chmod(open, 0o666)
	if _, _, err := Sweep(open, "", nil, -1); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Errorf("a world-writable ledger was swept: %v", err)
	}
}

// The run's ledger exists, empty, before any launcher process starts (the sandbox drops a rule for
// a missing file), and is the kit's own: one already there, or a planted symlink, is refused.
func TestNewLedgerMakesAnEmptyLedgerOnlyWhereNoneIs(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pids.ledger")
	if err := NewLedger(path); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Size() != 0 || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the new ledger: %v, %v; want an empty regular file, mode 0600", fi, err)
	}
	if err := NewLedger(path); err == nil {
		t.Error("a second NewLedger on the same path: no error, want a refusal")
	}
	link := filepath.Join(dir, "planted.ledger")
	if err := os.Symlink(filepath.Join(dir, "elsewhere"), link); err != nil {
		t.Fatal(err)
	}
	if err := NewLedger(link); err == nil {
		t.Error("NewLedger on a planted symlink: no error, want a refusal")
	}
	if _, err := os.Stat(filepath.Join(dir, "elsewhere")); err == nil {
		t.Error("NewLedger followed a planted symlink and made its target")
	}
}

// alive is proctable.Alive for a test: a process the test cannot read fails it loudly.
func alive(pid int) bool {
	a, err := proctable.Alive(pid)
	if err != nil {
		panic(err)
	}
	return a
}
