package faults

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/classproof/classproof/helpers/base/confine"
	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/identity"
)

// injected is a Spawner whose processes may write dir and get the fault the environment names, as
// a launcher instance's do (ForInstance), and that fault's Injector; the caller closes the
// Spawner, which closes the Injector.
func injected(t *testing.T, dir string) (*confine.Spawner, *Injector) {
	t.Helper()
	in := ForInstance()
	if in == nil {
		t.Fatalf("no fault to inject: $%s is empty", contract.InjectEnv)
	}
	sp := confine.NewSpawner(confine.Policy{Dirs: []string{dir}})
	sp.InjectFault(in)
	return sp, in
}

// Each mode of an injected fault, on a real class step (util-linux chrt, which calls
// sched_setscheduler, in front of a sleep): silent leaves the sleep at SCHED_OTHER, wrong puts it
// at SCHED_BATCH, late leaves it at SCHED_OTHER at first and at SCHED_IDLE LateBy later; each call
// is in the log. A name outside the table is refused, naming what is accepted.
func TestAnInjectedFaultInEachMode(t *testing.T) {
	if _, err := exec.LookPath("chrt"); err != nil {
		t.Fatalf("chrt (util-linux) is missing; ci/tools installs it: %v", err)
	}
	if err := Check("renice:late"); err == nil || !strings.Contains(err.Error(), "sched_setscheduler") {
		t.Errorf("an unknown fault: %v; want the accepted ones named", err)
	}
	policy := func(pid int) uint32 {
		a, err := unix.SchedGetAttr(pid, 0)
		if err != nil {
			return 99
		}
		return a.Policy
	}
	for _, c := range []struct {
		mode         string
		first, final uint32
	}{
		{"", unix.SCHED_NORMAL, unix.SCHED_NORMAL},
		{":wrong", unix.SCHED_BATCH, unix.SCHED_BATCH},
		{":late", unix.SCHED_NORMAL, unix.SCHED_IDLE},
	} {
		log := filepath.Join(t.TempDir(), "injected.log")
		t.Setenv(contract.InjectEnv, "sched_setscheduler"+c.mode)
		t.Setenv(contract.InjectLogEnv, log)
		sp, _ := injected(t, t.TempDir())
		cmd := exec.Command("chrt", "--idle", "0", "sleep", "5")
		if err := sp.Start(cmd); err != nil {
			t.Fatal(err)
		}
		pid := cmd.Process.Pid
		// The class step is done once chrt has exec'd sleep.
		for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm"); strings.TrimSpace(string(b)) == "sleep" {
				break
			}
		}
		first := policy(pid)
		final := first
		for deadline := time.Now().Add(LateBy + 2*time.Second); final != c.final && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			final = policy(pid)
		}
		b, _ := os.ReadFile(log)
		cmd.Process.Kill()
		cmd.Wait()
		sp.Close()
		if first != c.first || final != c.final || !strings.HasPrefix(string(b), "sched_setscheduler"+c.mode+" pid ") {
			t.Errorf("sched_setscheduler%s: policy %d at first, %d at last; want %d, then %d; the log says %q", c.mode, first, final, c.first, c.final, b)
		}
	}
}

// The listener is no confused deputy (issue 53): a launcher process (uid 65534) that asks, under
// an injected fault, for a root process's policy is judged by the kernel as itself (refused),
// never served by the root kit; and a late fault applies a nice of -10, which the caller may
// never set itself, as the caller: refused, so it stays at 0.
func TestAnInjectedFaultLendsTheCallerNothing(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skipf("needs a root kit whose launcher is another user; runs as uid %d", os.Geteuid())
	}
	nobody := &syscall.Credential{Uid: identity.DefaultLauncherUID, Gid: identity.DefaultLauncherUID, Groups: []uint32{}}
	start := func(t *testing.T, fault string, cred *syscall.Credential, args ...string) (*exec.Cmd, func()) {
		t.Helper()
		t.Setenv(contract.InjectEnv, fault)
		t.Setenv(contract.InjectLogEnv, filepath.Join(t.TempDir(), "injected.log"))
		sp, _ := injected(t, t.TempDir())
		cmd := exec.Command(args[0], args[1:]...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		if err := sp.Start(cmd); err != nil {
			t.Fatal(err)
		}
		return cmd, func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); sp.Close() }
	}

	root := exec.Command("sleep", "30")
	if err := root.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = root.Process.Kill(); _ = root.Wait() }()
	chrt, done := start(t, "sched_setscheduler:wrong", nobody, "chrt", "--batch", "-p", "0", strconv.Itoa(root.Process.Pid))
	err := chrt.Wait()
	done()
	if a, gerr := unix.SchedGetAttr(root.Process.Pid, 0); gerr != nil || a.Policy != unix.SCHED_NORMAL {
		t.Errorf("uid 65534's chrt --batch -p of root's pid %d under sched_setscheduler:wrong: root's process is at policy %v (%v), expected SCHED_OTHER (0); chrt: %v", root.Process.Pid, a, gerr, err)
	}

	nice, done := start(t, "setpriority:late", nobody, "nice", "-n", "-10", "sleep", "30")
	defer done()
	pid := nice.Process.Pid
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm"); strings.TrimSpace(string(b)) == "sleep" {
			break
		}
	}
	// Past the late application, the nice must never have become -10.
	for deadline := time.Now().Add(LateBy + time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if n, err := unix.Getpriority(unix.PRIO_PROCESS, pid); err == nil && 20-n == -10 {
			t.Fatalf("uid 65534's nice -n -10 under setpriority:late: the kit applied nice -10 for it")
		}
	}
}

// A launcher may set its child's class from outside (chrt -p, ionice -p, renice -p on the
// child's pid): the fault takes those calls too, or a broken class step would read as a fault
// that "never fired".
func TestAnInjectedFaultTakesACallOnAnotherProcess(t *testing.T) {
	log := filepath.Join(t.TempDir(), "injected.log")
	t.Setenv(contract.InjectEnv, "sched_setscheduler")
	t.Setenv(contract.InjectLogEnv, log)
	dir := t.TempDir() // the sandbox's one writable folder: the child's pid goes there
	sp, _ := injected(t, dir)
	defer sp.Close()
	out := filepath.Join(dir, "child")
	cmd := exec.Command("sh", "-c", `sleep 30 & echo $! >"$1"; chrt --idle -p 0 $!; wait`, "sh", out)
	if err := sp.Start(cmd); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var child int
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if b, _ := os.ReadFile(log); len(b) > 0 {
			pid, _ := os.ReadFile(out)
			child, _ = strconv.Atoi(strings.TrimSpace(string(pid)))
			break
		}
	}
	if child > 0 { // never 0 or below: kill(2) would take a whole process group
		defer func() { _ = unix.Kill(child, unix.SIGKILL) }()
	}
	b, _ := os.ReadFile(log)
	a, err := unix.SchedGetAttr(child, 0)
	if child == 0 || err != nil || a.Policy != unix.SCHED_NORMAL || !strings.HasPrefix(string(b), "sched_setscheduler pid ") {
		t.Fatalf("chrt --idle -p CHILD under a silent sched_setscheduler fault: child %d at %v (%v), log %q; want SCHED_OTHER and the call logged", child, a, err, b)
	}
}
