package identity

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

	"golang.org/x/sys/unix"
)

// A launcher whose writes no sandbox confined may have left a door anywhere its uid could write,
// which no walk of the shared folders sees (/var/crash is 1777 on Ubuntu): its uid is never
// marked clean, it is kept out with a line saying why, and with every uid of the pool kept the
// next run fails naming the operator's release.
func TestAnUnconfinedRunsUidIsKeptOutAndTheDryPoolSaysSo(t *testing.T) {
	first := 63801
	forRunHere(t, first, first)
	was := writesConfined
	t.Cleanup(func() { writesConfined = was })
	writesConfined = func() bool { return false }
	id, release, err := ForRun()
	if err != nil {
		t.Fatal(err)
	}
	leaks, left, failed := release()
	if len(leaks) != 0 || len(failed) != 0 || !strings.Contains(strings.Join(left, "\n"), "not confined") {
		t.Errorf("release: leaks %q, left %q, failed %q; want nothing failed and a line saying uid %d is kept out as its writes were not confined", leaks, left, failed, id.Uid)
	}
	if _, err := os.Lstat(cleanFile(id.Uid)); err == nil {
		t.Errorf("uid %d, whose writes were not confined, was marked clean (%s)", id.Uid, cleanFile(id.Uid))
	}
	again, releaseAgain, err := ForRun()
	if err == nil {
		releaseAgain()
		t.Fatalf("uid %d, whose unconfined launcher may have left a door anywhere, was taken again (%v)", id.Uid, again)
	}
	if !strings.Contains(err.Error(), "kept out") || !strings.Contains(err.Error(), "rm "+keptFile(id.Uid)) {
		t.Errorf("with every uid kept, ForRun said %q; want it to say they are kept out and name the release (rm %s)", err, keptFile(id.Uid))
	}
}

// A folder the walk cannot open for a reason other than its being gone (here EACCES: the walking
// thread without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH, as a FUSE mount of the uid's refuses
// root; EMFILE and ENOTCONN alike) is an unwalked subtree, never "nothing there".
func TestAWalkErrorIsNoCleanSweep(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the walk's subject is another uid's tree: root only")
	}
	const uid = 63901
	top := filepath.Join(t.TempDir(), "top")
	sub := filepath.Join(top, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "door"), nil, 0o6755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("chown", "-R", fmt.Sprint(uid), top).CombinedOutput(); err != nil {
		t.Fatal(err, string(out))
	}
	if err := os.Chmod(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	type walked struct {
		found []owned
		err   error
	}
	done := make(chan walked)
	go func() {
		// This thread alone loses the capabilities, and ends with the goroutine (never unlocked).
		runtime.LockOSThread()
		hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
		var data [2]unix.CapUserData
		if err := unix.Capget(&hdr, &data[0]); err != nil {
			done <- walked{err: err}
			return
		}
		data[0].Effective &^= 1<<unix.CAP_DAC_OVERRIDE | 1<<unix.CAP_DAC_READ_SEARCH
		if err := unix.Capset(&hdr, &data[0]); err != nil {
			done <- walked{err: err}
			return
		}
		found, unwalked, err := ownedIn(uid, []string{top})
		done <- walked{found, errors.Join(append(unwalked, err)...)}
	}()
	w := <-done
	if !errors.Is(w.err, syscall.EACCES) {
		t.Errorf("a walk of %s (uid %d's, holding its 0700 folder %s with a setuid file) that cannot open %s found %d and said %v; want EACCES, not a clean walk", top, uid, sub, sub, len(w.found), w.err)
	}
}

// A process that has the uid but that the uid cannot kill (root's, with the uid as its group)
// survives the release: the uid is not marked clean, so the next run sweeps again.
func TestASurvivorKeepsTheUidFromBeingMarkedClean(t *testing.T) {
	first := 64001
	forRunHere(t, first, first)
	id, release, err := ForRun()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 0, Gid: uint32(id.Uid), Groups: []uint32{}}}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	leaks, _, _ := release()
	if _, err := os.Lstat(cleanFile(id.Uid)); err == nil {
		t.Errorf("uid %d was marked clean (%s) while pid %d of it survived the release (leaks %q)", id.Uid, cleanFile(id.Uid), cmd.Process.Pid, leaks)
	}
}
