package proctable

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestSameIDsWantsAllFourAlike(t *testing.T) {
	status := "Name:\tsleep\nUid:\t65534\t65534\t65534\t65534\nGid:\t65534\t65534\t65534\t0\n"
	if id, ok := sameIDs(status, "Uid:"); !ok || id != 65534 {
		t.Errorf("Uid: all 65534: got %d %v", id, ok)
	}
	if _, ok := sameIDs(status, "Gid:"); ok {
		t.Error("Gid: with an fs gid of 0 gave one id; a setgid process must be read as the kit")
	}
	if _, ok := sameIDs("Name:\tx\n", "Uid:"); ok {
		t.Error("no Uid: line gave an id")
	}
}

// A root kit reads another user's process's executable and environment as that user, which
// needs no CAP_SYS_PTRACE (actas drops every capability, so this holds here as in a container).
func TestExeAndIdentityOfAnotherUsersProcess(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skipf("needs a root kit to start a process as another user; runs as uid %d", os.Geteuid())
	}
	cmd := exec.Command("sleep", "60")
	cmd.Env = []string{"CLASSPROOF_TEST_MARK=owner"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	pid := cmd.Process.Pid
	// execve closes Go's status pipe before it sets up the new arguments: wait for them.
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if args, _ := Args(pid); len(args) > 1 {
			break
		}
	}
	sleep, _ := exec.LookPath("sleep")
	exe, err := Exe(pid)
	if err != nil || exe != sleep {
		t.Errorf("Exe(%d) = %q, %v; expected %s", pid, exe, err, sleep)
	}
	id, err := Identity(pid)
	if err != nil || !strings.Contains(string(id), "CLASSPROOF_TEST_MARK=owner") {
		t.Errorf("Identity(%d) = %q, %v; expected its environment", pid, id, err)
	}
}

// A harness in a user namespace of its owner's (bwrap, unshare -U) is still read: the kernel's
// check wants the owner's effective uid there, not only its fs uid.
func TestExeOfAProcessInItsOwnersUserNamespace(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skipf("needs a root kit to start a process as another user; runs as uid %d", os.Geteuid())
	}
	nobody := &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}}
	// The control: a user namespace for uid 65534 at all. Docker's default seccomp profile
	// refuses unshare(CLONE_NEWUSER) without CAP_SYS_ADMIN.
	ctl := exec.Command("unshare", "-U", "true")
	ctl.SysProcAttr = nobody
	if out, err := ctl.CombinedOutput(); err != nil {
		t.Skipf("uid 65534 cannot make a user namespace here (unshare -U true: %v, %q): there is no process in one to read", err, strings.TrimSpace(string(out)))
	}
	cmd := exec.Command("unshare", "-U", "sleep", "60")
	cmd.SysProcAttr = nobody
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	pid := cmd.Process.Pid
	sleep, _ := exec.LookPath("sleep")
	var exe string
	var err error
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if exe, err = Exe(pid); exe == sleep {
			return
		}
	}
	t.Fatalf("Exe(%d) of uid 65534's unshare -U sleep: %q, %v; expected %s", pid, exe, err, sleep)
}
