package proc

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/classproof/classproof/helpers/base/cgroup"
	"github.com/classproof/classproof/helpers/base/proctable"
)

// needCgroup skips where this process cannot make a cgroup: the fallback is then what runs,
// and the tests above cover it.
func needCgroup(t *testing.T) *cgroup.Cgroup {
	t.Helper()
	c := cgroup.Contained()
	if c.Cgroup == nil {
		t.Skipf("no writable cgroup v2 here: %s", c.Why)
	}
	return c.Cgroup
}

// A textbook daemon(3) below a launcher, a double fork and setsid, leaves the group, the session
// and the parent the kit knows, yet not the cgroup: the set's cleanup names it as a leak, with
// its args and class, and kills it.
func TestADoubleForkedSetsidChildIsALeak(t *testing.T) {
	needCgroup(t)
	s := &Set{}
	cmd := exec.Command("sh", "-c", `(setsid sleep 600 </dev/null >/dev/null 2>&1 & echo $!)`)
	if err := s.Contain(cmd); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	t.Cleanup(func() { _ = syscallKill(pid) })
	// Reparented, and setsid has exec'd sleep (under load it may still be setsid for a while).
	if err := Until(time.Now().Add(5*time.Second), 5*time.Millisecond, func() (bool, error) {
		pp, err := proctable.ParentOf(pid)
		args, aerr := proctable.Args(pid)
		return err == nil && aerr == nil && pp != cmd.Process.Pid && strings.Join(args, " ") == "sleep 600", nil
	}); err != nil || !alive(pid) {
		t.Fatalf("the daemon child %d did not outlive its parent: %v", pid, err)
	}
	err = s.KillAll(5 * time.Second)
	if err == nil || !strings.Contains(err.Error(), "LEAK: still in the cgroup after the cleanup") ||
		!strings.Contains(err.Error(), "pid "+strconv.Itoa(pid)+` ["sleep" "600"], policy 0 SCHED_OTHER, nice 0`) {
		t.Errorf("the cleanup did not name the escaped daemon child %d: %v", pid, err)
	}
	if err := Until(time.Now().Add(5*time.Second), 5*time.Millisecond, func() (bool, error) { return !alive(pid), nil }); err != nil {
		t.Errorf("the escaped daemon child %d is alive after the cleanup", pid)
	}
}

// A launcher's exec helper (a /bin/sh wrapper that forks the harness, waits for it and exits
// right after it; docs/manifest.md lets it run at normal class) is still in the cgroup when the
// cleanup has killed the harness it waited for: on its way out, no leak. Its tail here (a
// sleep of 300 ms) stands for an exit path under load, so that the cleanup always finds it
// there; it must end on its own, not by cgroup.kill, and the cleanup must wait for that.
func TestAHelperThatExitsAfterItsHarnessIsNoLeak(t *testing.T) {
	needCgroup(t)
	s := &Set{}
	cmd := exec.Command("sh", "-c", `sleep 600 </dev/null >/dev/null 2>&1 & echo $!; wait; sleep 0.3 >/dev/null`)
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
	line, _ := bufio.NewReader(out).ReadString('\n')
	// The test waits for the helper itself, as os/exec does for what the kit starts: no reap of
	// orphans may take it (its exit status says whether it ended on its own).
	owned.Store(cmd.Process.Pid, true)
	helper := make(chan error, 1)
	go func() { helper <- cmd.Wait() }()
	harness, _ := strconv.Atoi(strings.TrimSpace(line))
	t.Cleanup(func() { _ = syscallKill(harness) })
	s.Track("harness", harness) // the helper itself is not tracked: nothing reported it
	if err := s.KillAll(5 * time.Second); err != nil {
		t.Errorf("the cleanup named a helper on its way out: %v", err)
	}
	select {
	case err := <-helper:
		if err != nil {
			t.Errorf("the helper did not end on its own (the cleanup killed it rather than wait): %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Errorf("the helper pid %d outlived the cleanup", cmd.Process.Pid)
	}
}

// The grace is for processes that end, not for pids that do: a chain of short-lived processes,
// each forking the next and exiting within 50 ms, ends no pid's stay past the grace, and is
// still there when it ends. It is a leak, named, and cgroup.kill ends the chain.
func TestAChainOfShortLivedProcessesIsALeak(t *testing.T) {
	t.Run("a shell link of 50 ms", func(t *testing.T) {
		chainIsALeak(t, exec.Command("sh", "-c", `r() { sleep 0.05; (r </dev/null >/dev/null 2>&1 &); }; (r </dev/null >/dev/null 2>&1 &)`))
	})
	t.Run("a link that forks the next at once", func(t *testing.T) {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), hopEnv+"=1")
		chainIsALeak(t, cmd)
	})
}

// hopEnv makes this test binary a link of a chain (hop).
const hopEnv = "CP_TEST_HOP"

// hop starts this binary again as the next link and exits: a leak that is never the same pid for
// more than a process start.
func hop() {
	_, _ = syscall.ForkExec("/proc/self/exe", []string{os.Args[0]}, &syscall.ProcAttr{Env: os.Environ()})
	os.Exit(0)
}

// chainIsALeak starts cmd, a chain of processes each forking the next and exiting, and checks
// the cleanup names it: a read that finds only a link on its way out is no empty cgroup (a
// hostile chain with no wait was named 0 of 3 times when it was).
func chainIsALeak(t *testing.T, cmd *exec.Cmd) {
	needCgroup(t)
	s := &Set{}
	if err := s.Contain(cmd); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	cg := s.Cgroup()
	err := s.KillAll(5 * time.Second)
	// Whichever link the grace's end finds is named: the chain's sh, its sleep, or one caught in
	// exec with no arguments yet (seen under load).
	if err == nil || !strings.Contains(err.Error(), "LEAK: still in the cgroup after the cleanup") {
		t.Errorf("the cleanup did not name the chain: %v", err)
	}
	if _, err := os.Stat(cg.Path); !os.IsNotExist(err) {
		t.Errorf("the set's cgroup %s is still there after the chain was killed: %v", cg.Path, err)
	}
}

// What the set killed itself is no leak, and the set's cgroup is gone afterwards.
func TestATrackedProcessIsNoLeakAndTheCgroupGoes(t *testing.T) {
	needCgroup(t)
	s := &Set{}
	cmd := exec.Command("sh", "-c", "sleep 600 & sleep 600 & wait")
	if err := s.Contain(cmd); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go cmd.Wait()
	s.TrackOwned("sh", cmd.Process.Pid)
	cg := s.Cgroup()
	if !cg.Holds(cmd.Process.Pid) {
		t.Fatalf("pid %d is not in the set's cgroup %s", cmd.Process.Pid, cg.Path)
	}
	if err := s.KillAll(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cg.Path); !os.IsNotExist(err) {
		t.Errorf("the set's cgroup %s is still there: %v", cg.Path, err)
	}
}

// A process in another cgroup, a sibling test process's say, is never the run's, whatever token it carries.
func TestTheCgroupDecidesTheTie(t *testing.T) {
	root := needCgroup(t)
	other, err := root.Child("other")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(Reap)
	in := &Set{}
	for _, c := range []struct {
		name string
		cg   *cgroup.Cgroup
		want string
	}{{"in the run's cgroup", nil, ""}, {"in another cgroup, with the run's token", other, "it is not in this run's cgroup"}} {
		cmd := exec.Command("sleep", "30")
		cmd.Env = append(os.Environ(), "CLASSPROOF_RUN=cp-this")
		if c.cg == nil {
			_ = in.Contain(cmd)
		} else {
			c.cg.Start(cmd)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		ok, why := tie("cp-this", in.Cgroup())(cmd.Process.Pid)
		if ok != (c.want == "") || !strings.Contains(why, c.want) {
			t.Errorf("%s: tied %v, %q; want %q", c.name, ok, why, c.want)
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	_ = in.KillAll(time.Second)
}

func syscallKill(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

// TestMain ends the cgroup this test process made, as the CLI and the suites do at their end.
func TestMain(m *testing.M) {
	if os.Getenv(hopEnv) != "" {
		hop()
	}
	code := m.Run()
	if left, err := cgroup.CloseContained(Reap); len(left) > 0 || err != nil {
		println("proc tests: this process's cgroup at the end:", strings.Join(left, "; "), err)
		code = 1
	}
	os.Exit(code)
}
