package identity

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/classproof/classproof/helpers/base/contract"
)

// forRunHere narrows ForRun to uids first..last with locks in a folder of the test's own, and
// skips where ForRun gives no uid of a run's own (not root, or a uid the user chose).
func forRunHere(t *testing.T, first, last int) {
	t.Helper()
	if os.Geteuid() != 0 || contract.Current().LauncherUID != "" {
		t.Skipf("ForRun takes a uid only for a root kit whose user chose none (euid %d, $%s=%q)", os.Geteuid(), contract.LauncherUIDEnv, contract.Current().LauncherUID)
	}
	locks, uids := runUIDLocks, runUIDs
	t.Cleanup(func() { runUIDLocks, runUIDs = locks, uids })
	runUIDLocks, runUIDs = filepath.Join(t.TempDir(), "uid"), [2]int{first, last}
}

// reaped waits until nothing of uid is left, zombies included (its killed processes are the
// reaper's to wait for), so that the next test may take it.
func reaped(t *testing.T, uid int) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		busy, err := uidBusy(uid, true)
		if err != nil || len(busy) == 0 {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("uid %d still has %v 10 s after its release", uid, busy)
		}
	}
}

// asUser starts sleep SECONDS as uid (a process of another run, or one left behind).
func asUser(t *testing.T, uid int, seconds string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", seconds)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid), Groups: []uint32{}}}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

// Two runs at once never share a uid, and neither takes one a process already has: of three, one
// has a process (another kit's launcher, a systemd DynamicUser service), one is held by the first
// run, so the second gets the third; with all three gone, a third run is refused, naming the range
// and the way out.
func TestEachRunHasAUidNoOneElseHas(t *testing.T) {
	first := 63001
	forRunHere(t, first, first+2)
	asUser(t, first+1, "30")
	a, releaseA, err := ForRun()
	if err != nil {
		t.Fatal(err)
	}
	defer releaseA()
	b, releaseB, err := ForRun()
	if err != nil {
		t.Fatal(err)
	}
	defer releaseB()
	if !a.PerRun || !b.PerRun || a.Uid == b.Uid || a.Uid == first+1 || b.Uid == first+1 || a.Gid != a.Uid {
		t.Fatalf("two runs got %v and %v; want two uids of their own, neither %d (a process has it)", a, b, first+1)
	}
	if _, _, err := ForRun(); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("no uid in %d-%d is free", first, first+2)) || !strings.Contains(err.Error(), contract.LauncherUIDEnv) {
		t.Errorf("a third run with every uid taken: %v; want a refusal naming the range and %s", err, contract.LauncherUIDEnv)
	}
	if !strings.Contains(a.String(), "the run's own") {
		t.Errorf("the identity does not say it is the run's own: %s", a)
	}
}

// Letting go of a run's uid kills what still has it, as that uid, and names it (it escaped the
// run's sweep); what it left in the temp folder and /dev/shm is removed and named; the uid is
// free for the next run.
func TestReleaseKillsAndRemovesWhatTheRunsUidLeft(t *testing.T) {
	first := 63101
	forRunHere(t, first, first)
	id, release, err := ForRun()
	if err != nil {
		t.Fatal(err)
	}
	left := asUser(t, id.Uid, "987661")
	shm := filepath.Join("/dev/shm", fmt.Sprintf("classproof-test-%d", os.Getpid()))
	if err := os.WriteFile(shm, []byte("x"), 0o600); err != nil {
		t.Skipf("no /dev/shm to leave a file in: %v", err)
	}
	defer os.Remove(shm)
	if err := os.Lchown(shm, id.Uid, id.Gid); err != nil {
		t.Fatal(err)
	}
	// A segment the uid made and then gave to root (its creator still may remove it), as the
	// review of issue 53 left one behind.
	// Made and given away by the uid itself: root without CAP_IPC_OWNER (a container's, with
	// Docker's defaults) may not read another uid's segment, nor hand it over.
	giver := exec.Command("/proc/self/exe", "-test.run=^$") // through the magic link: its folder is root's 0700
	giver.Env = append(os.Environ(), shmGiverEnv+"=1")
	giver.SysProcAttr = &syscall.SysProcAttr{Credential: id.Credential()}
	out, err := giver.Output()
	seg, serr := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || serr != nil {
		t.Fatalf("uid %d making a segment and giving it to root: %v %q", id.Uid, err, out)
	}
	defer unix.SysvShmCtl(seg, unix.IPC_RMID, nil)
	leaks, files, failed := release()
	if len(failed) != 0 {
		t.Errorf("release failed the run on what the uid left and the sweep removed: %q", failed)
	}
	if len(leaks) != 1 || !strings.Contains(leaks[0], fmt.Sprintf("pid %d", left.Process.Pid)) || !strings.Contains(leaks[0], "987661") {
		t.Errorf("release named %q; want the sleep (pid %d) of uid %d", leaks, left.Process.Pid, id.Uid)
	}
	done := make(chan error, 1)
	go func() { done <- left.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Errorf("pid %d of uid %d is alive after release", left.Process.Pid, id.Uid)
	}
	if _, err := os.Lstat(shm); err == nil || len(files) != 2 || !strings.Contains(strings.Join(files, "\n"), fmt.Sprintf("%q (uid ", shm)) {
		t.Errorf("release left %s (err %v) and named %q", shm, err, files)
	}
	if _, err := unix.SysvShmCtl(seg, unix.IPC_STAT, &unix.SysvShmDesc{}); err == nil || !strings.Contains(strings.Join(files, "\n"), fmt.Sprintf(`"shm:%d" (uid`, seg)) {
		t.Errorf("release left System V segment %d (stat: %v) and named %q", seg, err, files)
	}
	again, releaseAgain, err := ForRun()
	if err != nil || again.Uid != id.Uid {
		t.Fatalf("after release the only uid %d was not free again: %v, %v", id.Uid, again, err)
	}
	releaseAgain()
	reaped(t, id.Uid)
}

// zombieLeaderEnv makes this test binary a process whose main thread exits by itself while
// another thread holds 100 MiB: its leader shows State Z, and it runs on.
const zombieLeaderEnv = "CLASSPROOF_TEST_ZOMBIE_LEADER"

func init() {
	if os.Getenv(zombieLeaderEnv) == "" {
		return
	}
	runtime.LockOSThread() // main runs on the leader thread, which exits alone below
	go func() {
		b := make([]byte, 100<<20)
		for i := range b {
			b[i] = 1
		}
		for {
			time.Sleep(time.Second)
			_ = b[len(b)-1]
		}
	}()
	time.Sleep(200 * time.Millisecond)
	unix.RawSyscall(unix.SYS_EXIT, 0, 0, 0) // this thread only
}

// shmGiverEnv makes this test binary, started as a run's uid, make a System V shared memory
// segment, give it to root and print its id.
const shmGiverEnv = "CLASSPROOF_TEST_SHM_GIVER"

func init() {
	if os.Getenv(shmGiverEnv) == "" {
		return
	}
	seg, err := unix.SysvShmGet(unix.IPC_PRIVATE, 1<<20, unix.IPC_CREAT|0o600)
	ds := &unix.SysvShmDesc{}
	if err == nil {
		_, err = unix.SysvShmCtl(seg, unix.IPC_STAT, ds)
	}
	if err == nil {
		ds.Perm.Uid, ds.Perm.Gid = 0, 0
		_, err = unix.SysvShmCtl(seg, unix.IPC_SET, ds)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(seg)
	os.Exit(0)
}

// A process whose leader thread exited (State Z) while its other threads run is alive: its memory
// counts, and letting go of the run's uid kills it (the review of issue 53 saw both missed: 0
// tasks, 0 bytes, and it ran on after the run).
func TestAProcessWithAnExitedLeaderIsAlive(t *testing.T) {
	forRunHere(t, 63401, 63401)
	id, release, err := ForRun()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	// Through the magic link: the test binary's own folder is root's 0700.
	cmd := exec.Command("/proc/self/exe", "-test.run=^$")
	cmd.Env = append(os.Environ(), zombieLeaderEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: id.Credential()}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	defer func() { cmd.Process.Kill(); <-done }()
	var tasks int
	var rss uint64
	for end := time.Now().Add(10 * time.Second); rss < 100<<20 && time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		tasks, rss = id.Holds()
	}
	if tasks < 2 || rss < 100<<20 {
		t.Errorf("uid %d's process with an exited leader: %d tasks, %d bytes counted; want its threads and its 100 MiB", id.Uid, tasks, rss)
	}
	leaks, _, _ := release()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Errorf("pid %d (leader exited) is alive 10 s after release", cmd.Process.Pid)
	}
	if len(leaks) != 1 || !strings.Contains(leaks[0], fmt.Sprintf("pid %d", cmd.Process.Pid)) {
		t.Errorf("release named %q; want pid %d", leaks, cmd.Process.Pid)
	}
	reaped(t, id.Uid)
}

// A run takes a uid its last run let go of clean before any other: that one needs no sweep of
// the shared folders to be taken (a walk of every file in /tmp, seconds on a machine whose /tmp
// holds a kit's cache). Of four free uids, one marked clean, the next run takes it every time.
func TestARunTakesAUidLetGoOfCleanFirst(t *testing.T) {
	first := 60901 // below the pool: no run of the kit's ever held these
	forRunHere(t, first, first+3)
	if err := os.MkdirAll(runUIDLocks, 0o700); err != nil {
		t.Fatal(err)
	}
	markClean(first + 2)
	for i := 0; i < 6; i++ {
		id, release, err := ForRun()
		if err != nil {
			t.Fatal(err)
		}
		leaks, left, failed := release()
		if id.Uid != first+2 {
			t.Fatalf("run %d took uid %d of %d-%d, where %d was marked clean (%s)", i+1, id.Uid, first, first+3, first+2, cleanFile(first+2))
		}
		if len(leaks)+len(left)+len(failed) != 0 || !markedClean(id.Uid) {
			t.Fatalf("uid %d, which ran nothing, let go of with leaks %q, left %q, failed %q, marked clean %v", id.Uid, leaks, left, failed, markedClean(id.Uid))
		}
	}
}
