package actas

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
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
