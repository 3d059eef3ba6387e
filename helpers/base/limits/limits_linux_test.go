package limits

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/identity"
)

// runsOwn is a uid of the test's own, in systemd's DynamicUser range, as a run's own (PerRun):
// Watch then samples it, and what it starts is the test's alone. Whatever of it is alive when the
// test ends is killed, and the test waits until the kernel has let go of it all, so that the next
// test may take it. Skipped but for a root kit (setuid in the child, kill as that uid).
func runsOwn(t *testing.T, uid int) identity.Identity {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skipf("a run's own uid is taken only by a root kit; this test runs as uid %d", os.Geteuid())
	}
	id := identity.Identity{Uid: uid, Gid: uid, PerRun: true}
	if tasks, _ := id.Holds(); tasks > 0 {
		t.Fatalf("uid %d, this test's own, has %d processes and threads before it began", uid, tasks)
	}
	t.Cleanup(func() {
		id.KillAll()
		for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if tasks, _ := id.Holds(); tasks == 0 {
				return
			}
			if time.Now().After(end) {
				t.Fatalf("uid %d still has processes 10 s after they were killed", uid)
			}
		}
	})
	return id
}

// The run's own uid is bounded: the kernel refuses a fork past RLIMIT_NPROC to that uid alone
// (the kit, root, is never counted), and Watch names the bound it was seen at.
func TestARunsUidCannotForkPastItsBound(t *testing.T) {
	id := runsOwn(t, 63201)
	l := Limits{Procs: 64, FileBytes: 64 << 20, MemoryBytes: 1 << 30}
	stop := l.Watch(id, 100*time.Millisecond)
	// A shell of the uid under the bound starts sleeps until the kernel refuses a fork (the shell
	// then gives up); at most the bound's worth are ever there.
	cmd := exec.Command("sh", "-c", `i=0; while [ $i -lt 500 ]; do sleep 30 & i=$((i+1)); done; sleep 1`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: id.Credential(), Setpgid: true}
	// The test process (root, never counted) holds the bound while the shell starts, as a
	// suite process does (Bound).
	old := &unix.Rlimit{}
	unix.Getrlimit(unix.RLIMIT_NPROC, old)
	defer unix.Setrlimit(unix.RLIMIT_NPROC, old)
	if err := unix.Setrlimit(unix.RLIMIT_NPROC, &unix.Rlimit{Cur: l.Procs, Max: l.Procs}); err != nil {
		t.Fatal(err)
	}
	// To a file: a pipe would wait for the sleeps that hold it.
	log, err := os.Create(filepath.Join(t.TempDir(), "sh.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	_ = cmd.Run()
	unix.Setrlimit(unix.RLIMIT_NPROC, old)
	tasks, _ := id.Holds()
	time.Sleep(300 * time.Millisecond) // three of Watch's samples at least
	peak, over := stop()
	leaks := id.KillAll()
	out, _ := os.ReadFile(log.Name())
	if tasks > int(l.Procs) || tasks < int(l.Procs)/2 {
		t.Errorf("uid %d had %d processes and threads under a bound of %d (peak %+v; the shell said %q)", id.Uid, tasks, l.Procs, peak, out)
	}
	if len(over) == 0 || !strings.Contains(over[0], "came within 8 of their bound of 64 processes and threads") || !strings.Contains(over[0], contract.LauncherLimitsEnv) {
		t.Errorf("Watch said %q (peak %+v, %d seen after the shell); want the bound named", over, peak, tasks)
	}
	if len(leaks) == 0 {
		t.Errorf("the sleeps left by the shell were not named when the uid's processes were killed")
	}
}

// Past its memory bound, everything of the run's uid is killed and the run is told why.
func TestARunsUidPastItsMemoryBoundIsKilled(t *testing.T) {
	id := runsOwn(t, 63301)
	stop := Limits{Procs: 4096, FileBytes: 64 << 20, MemoryBytes: 100 << 20}.Watch(id, 100*time.Millisecond)
	// dd fills a 200 MiB buffer from /dev/zero (every page touched), then blocks writing it to
	// a pipe no one reads: 200 MiB resident until killed.
	cmd := exec.Command("sh", "-c", "dd if=/dev/zero bs=200M count=1 2>/dev/null | sleep 60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: id.Credential(), Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		t.Errorf("a 200 MiB process of the run's uid under a bound of 100 MiB was alive 10 s later")
	}
	peak, over := stop()
	if len(over) != 1 || !strings.Contains(over[0], "past its bound of 100MiB") || !strings.Contains(over[0], "killed: ") || !strings.Contains(over[0], "dd") {
		t.Errorf("Watch said %q (peak %+v); want the memory bound named and dd among the killed", over, peak)
	}
}
