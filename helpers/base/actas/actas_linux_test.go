package actas

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

const nobody = 65534

func rootOnly(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skipf("acting as another user needs a root kit; this test runs as uid %d", os.Geteuid())
	}
}

// The kernel judges the work as the user: a root-only file is out of reach, and a process of
// the user's is readable through /proc while root's is not (no CAP_SYS_PTRACE left to lend).
func TestDoJudgesAsTheUserWithNoCapability(t *testing.T) {
	rootOnly(t)
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := Do(nobody, nobody, func() error { _, err := os.ReadFile(secret); return err })
	if !errors.Is(err, os.ErrPermission) {
		t.Fatalf("reading a root-only 0600 file as uid %d: %v, expected permission denied", nobody, err)
	}

	mine := sleeper(t, &syscall.Credential{Uid: nobody, Gid: nobody, Groups: []uint32{}})
	roots := sleeper(t, nil)
	if err := Do(nobody, nobody, func() error { _, err := os.Readlink(exe(mine)); return err }); err != nil {
		t.Fatalf("uid %d reading its own process's %s: %v", nobody, exe(mine), err)
	}
	err = Do(nobody, nobody, func() error { _, err := os.Readlink(exe(roots)); return err })
	if !errors.Is(err, os.ErrPermission) {
		t.Fatalf("uid %d reading root's process's %s: %v, expected permission denied (a capability was left)", nobody, exe(roots), err)
	}
}

// The identity ends with the work: the process's other threads keep root's.
func TestDoLeavesNoThreadChanged(t *testing.T) {
	rootOnly(t)
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50; i++ {
		_ = Do(nobody, nobody, func() error { return nil })
		if _, err := os.ReadFile(secret); err != nil {
			t.Fatalf("after %d calls, root reading its own file: %v", i+1, err)
		}
	}
}

func TestDoAsItselfRunsAsItIs(t *testing.T) {
	ran := false
	if err := Do(os.Geteuid(), os.Getegid(), func() error { ran = true; return nil }); err != nil || !ran {
		t.Fatalf("Do as the kit itself: ran %v, %v", ran, err)
	}
}

func exe(pid int) string { return fmt.Sprintf("/proc/%d/exe", pid) }

func sleeper(t *testing.T, cred *syscall.Credential) int {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd.Process.Pid
}

// The fs id change makes the kernel mark the whole process non-dumpable; Do gives the flag back
// (other root processes without CAP_SYS_PTRACE read the kit's exe and environ), and work that
// ends without returning (runtime.Goexit, as t.FailNow does) is an error, not a hang.
func TestDoLeavesTheKitDumpableAndReturnsFromGoexit(t *testing.T) {
	rootOnly(t)
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 1, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	before := 1
	if err := Do(nobody, nobody, func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	if after, _ := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0); after != before {
		t.Errorf("dumpable %d before Do, %d after", before, after)
	}
	done := make(chan error, 1)
	go func() { done <- Do(nobody, nobody, func() error { runtime.Goexit(); return nil }) }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("work that called runtime.Goexit returned no error")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Do did not return within 5 s of work that called runtime.Goexit")
	}
}

// The runtime never ends the process's main thread (runtime/proc.go, mexit wedges m0): work done
// there would leave the thread group's leader, the thread /proc/PID/status and kill(2)'s
// permission check read, as the user for good, so that user's processes could signal the kit.
// Work is never done on it, however the scheduler places the goroutine.
func TestTheMainThreadIsNeverTheUsers(t *testing.T) {
	rootOnly(t)
	// Free the main thread now and then, so the scheduler may hand it to the work.
	stop := make(chan struct{})
	defer close(stop)
	for i := 0; i < 4; i++ {
		go func() {
			for {
				select {
				case <-stop:
					return
				default:
					runtime.Gosched()
				}
			}
		}()
	}
	for i := 0; i < 300; i++ {
		onMain := false
		if err := Do(nobody, nobody, func() error { onMain = unix.Gettid() == os.Getpid(); return nil }); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile("/proc/self/status")
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if (strings.HasPrefix(line, "Uid:") || strings.HasPrefix(line, "Gid:")) && strings.Contains(line, fmt.Sprint(nobody)) || onMain {
				t.Fatalf("after %d calls the main thread acted as uid %d (ran there: %v): %s", i+1, nobody, onMain, line)
			}
		}
	}
}
