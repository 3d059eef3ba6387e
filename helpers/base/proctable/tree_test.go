package proctable

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// A chain ends at init (never asks for its parent), at a process that is its own parent, or
// after 256 links.
func TestChainStopsAtInitAndOnALoop(t *testing.T) {
	table := map[int]int{40: 30, 30: 1, 1: 0, 7: 7, 8: 9, 9: 8}
	parentOf := func(pid int) (int, error) {
		if pid <= 1 {
			t.Fatalf("asked for pid %d's parent", pid)
		}
		pp, ok := table[pid]
		if !ok {
			return 0, fmt.Errorf("pid %d: no such process", pid)
		}
		return pp, nil
	}
	if got, err := chainBy(40, parentOf); err != nil || fmt.Sprint(got) != "[40 30 1]" {
		t.Errorf("chain of 40: %v, %v; want [40 30 1]", got, err)
	}
	if got, _ := chainBy(7, parentOf); fmt.Sprint(got) != "[7 7]" {
		t.Errorf("a process that is its own parent: %v, want [7 7]", got)
	}
	if got, _ := chainBy(8, parentOf); len(got) != 257 {
		t.Errorf("a loop 8 -> 9 -> 8: %d links, want 257 (stopped after 256)", len(got))
	}
	if got, err := chainBy(50, parentOf); err == nil || fmt.Sprint(got) != "[50]" {
		t.Errorf("a gone process: %v, %v; want [50] and an error", got, err)
	}
	if got, err := Chain(os.Getpid()); err != nil || got[0] != os.Getpid() || got[len(got)-1] != 1 {
		t.Errorf("this test's chain: %v, %v; want it to start here and end at init", got, err)
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

// Descendants finds a tool below a shell.
func TestDescendantsFindsAGrandchild(t *testing.T) {
	sh := exec.Command("sh", "-c", "sleep 30 & wait")
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(sh.Process.Pid, syscall.SIGKILL); _ = sh.Wait() })
	var err error
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if below, e := Descendants(sh.Process.Pid); e != nil || len(below) > 0 {
			err = e
			break
		}
	}
	if below, _ := Descendants(sh.Process.Pid); err != nil || len(below) == 0 {
		t.Fatalf("no descendant of sh (pid %d) seen: %v", sh.Process.Pid, err)
	}
	below, err := Descendants(sh.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range below {
		_ = syscall.Kill(d, syscall.SIGKILL)
	}
}
