package proc

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A group leader (sh) with a child (sleep): killing the set kills both, tracked or not.
func TestKillAllKillsTheGroup(t *testing.T) {
	if err := BecomeSubreaper(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", "sleep 600 & echo $!; wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
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
	s := &Set{}
	s.TrackOwned("sh", cmd.Process.Pid)
	if !Alive(child) {
		t.Fatalf("child %d not alive before the kill", child)
	}
	if err := s.KillAll(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	if Alive(child) {
		t.Errorf("untracked child %d of the group survived", child)
	}
}

func TestSweepKillsWhatTheLedgerNamesAndSaysSo(t *testing.T) {
	ledger := filepath.Join(t.TempDir(), "ledger")
	t.Setenv(LedgerEnv, ledger)
	cmd := exec.Command("sleep", "600")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go cmd.Wait()
	NewSet().Track("leaky sleep", cmd.Process.Pid)
	leaks, err := Sweep(ledger)
	if err != nil || len(leaks) != 1 || !strings.Contains(leaks[0], "leaky sleep pid") {
		t.Fatalf("leaks %v err %v", leaks, err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for Alive(cmd.Process.Pid) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if Alive(cmd.Process.Pid) {
		t.Fatal("swept process still alive")
	}
	if leaks, _ := Sweep(ledger); len(leaks) != 0 {
		t.Errorf("a dead process reported again: %v", leaks)
	}
}

func TestDescends(t *testing.T) {
	ok, chain, err := Descends(os.Getpid(), os.Getppid())
	if err != nil || !ok {
		t.Fatalf("ok %v chain %v err %v", ok, chain, err)
	}
	if ok, _, _ := Descends(os.Getppid(), os.Getpid()); ok {
		t.Error("parent taken for a descendant")
	}
}
