package proctable

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Only the kernel's "no such process" is gone: a /proc entry that is not there, or ESRCH from a
// read of one that went. Every other read error (EMFILE, EACCES, a line that does not parse) says
// the kit cannot tell, and is never ErrNoProcess (issue 68).
func TestOnlyNoEntryOrESRCHIsNoSuchProcess(t *testing.T) {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Fatal(err)
	}
	pathErr := func(e error) error { return &fs.PathError{Op: "open", Path: "/proc/4242/stat", Err: e} }
	for _, c := range []struct {
		what string
		read func(string) ([]byte, error)
		gone bool
	}{
		{"no entry", func(string) ([]byte, error) { return nil, pathErr(syscall.ENOENT) }, true},
		{"ended during the read", func(string) ([]byte, error) { return nil, pathErr(syscall.ESRCH) }, true},
		{"out of descriptors", func(string) ([]byte, error) { return nil, pathErr(syscall.EMFILE) }, false},
		{"refused", func(string) ([]byte, error) { return nil, pathErr(syscall.EACCES) }, false},
		{"a line with no ')'", func(string) ([]byte, error) { return []byte("4242 (x S 1"), nil }, false},
	} {
		_, err := lookupBy(4242, c.read)
		if err == nil || Gone(err) != c.gone {
			t.Errorf("%s: Lookup's error %v, Gone %v; want an error, Gone %v", c.what, err, Gone(err), c.gone)
		}
	}
	if in, err := lookupBy(4242, func(string) ([]byte, error) { return stat, nil }); err != nil || in.Pid != 4242 || in.Start == 0 {
		t.Errorf("a stat line read: %+v, %v", in, err)
	}
}

// A process that cannot read /proc for want of a descriptor (EMFILE) cannot tell whether any
// process runs, itself included: Lookup, Alive and Table say so with an error, and no process is
// "gone" then. A read error taken for "no such process" made the run's watch stop watching a
// process for good (issue 68). Run in a child of the test, whose descriptors it exhausts.
func TestOutOfDescriptorsIsNeverNoSuchProcess(t *testing.T) {
	if os.Getenv("CP_EMFILE") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestOutOfDescriptorsIsNeverNoSuchProcess$", "-test.v")
		cmd.Env = append(os.Environ(), "CP_EMFILE=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the child with no descriptor left: %v\n%s", err, out)
		}
		return
	}
	me := os.Getpid()
	release := exhaustDescriptors(t)
	in, err := Lookup(me)
	alive, aerr := Alive(me)
	_, terr := Table()
	release()
	if err == nil || Gone(err) || !errors.Is(err, syscall.EMFILE) {
		t.Errorf("Lookup of this running process (pid %d) with no descriptor left: %+v, %v; want an EMFILE error, not ErrNoProcess", me, in, err)
	}
	if aerr == nil || Gone(aerr) || alive {
		t.Errorf("Alive of this running process (pid %d) with no descriptor left: %v, %v; want an error that says the kit cannot tell", me, alive, aerr)
	}
	if terr == nil {
		t.Errorf("Table with no descriptor left: no error; want one (a table without its processes says none run)")
	}
	if alive, err := Alive(me); err != nil || !alive {
		t.Errorf("Alive of this process with descriptors again: %v, %v", alive, err)
	}
}

// exhaustDescriptors lowers this process's descriptor limit and opens /dev/null until the
// kernel says EMFILE; release closes them and puts the limit back.
func exhaustDescriptors(t *testing.T) (release func()) {
	var was unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &was); err != nil {
		t.Fatal(err)
	}
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &unix.Rlimit{Cur: 64, Max: was.Max}); err != nil {
		t.Fatal(err)
	}
	var fds []int
	for {
		fd, err := unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if errors.Is(err, syscall.EMFILE) {
			break
		}
		if err != nil || len(fds) > 64 {
			t.Fatal(fmt.Errorf("exhausting descriptors: %d open: %v", len(fds), err))
		}
		fds = append(fds, fd)
	}
	return func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
		_ = unix.Setrlimit(unix.RLIMIT_NOFILE, &was)
	}
}

// leaderExitEnv makes this test binary a process whose main thread ends alone, at init (the
// runtime keeps the main goroutine on the main thread while inits run), while another thread runs
// on: what a hostile launcher made of a harness (issue 68).
const leaderExitEnv = "CP_LEADER_EXIT"

func init() {
	if os.Getenv(leaderExitEnv) == "" {
		return
	}
	up := make(chan struct{})
	go func() { runtime.LockOSThread(); close(up); select {} }()
	<-up // another thread runs: the process outlives its main thread
	syscall.Syscall(syscall.SYS_EXIT, 0, 0, 0)
}

// A process whose main thread ended alone runs on: it is alive, not dying, its leader ended
// (LeaderExited), and its executable reads ENOENT. A process on its way out, whose executable
// reads the same, is none of this: Account tells the two apart so (issue 68).
func TestALeaderThatEndedAloneRunsOn(t *testing.T) {
	if self, err := LeaderExited(os.Getpid()); err != nil || self {
		t.Fatalf("LeaderExited of this test process: %v, %v", self, err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), leaderExitEnv+"=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	pid := cmd.Process.Pid
	var exited bool
	var err error
	for end := time.Now().Add(10 * time.Second); !exited && time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		exited, err = LeaderExited(pid)
	}
	if !exited || err != nil {
		t.Fatalf("pid %d: its leader never read as ended alone: %v (%s)", pid, err, stateOf(pid))
	}
	alive, aerr := Alive(pid)
	_, xerr := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if !alive || aerr != nil || Exiting(pid) || !errors.Is(xerr, fs.ErrNotExist) {
		t.Errorf("pid %d, its leader ended alone: Alive %v (%v), Exiting %v, its executable %v; want alive, not exiting, ENOENT", pid, alive, aerr, Exiting(pid), xerr)
	}
}
