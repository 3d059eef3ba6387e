package actas

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// stopperUID is a uid of these tests' own: a stopper's kill(-1) reaches only what they start.
const stopperUID = 61369

// stopperEnv makes this test binary a process of stopperUID's that sends SIGSTOP to every process
// of its uid (kill -1), over and over, until it is killed: a launcher that stops the kit's work.
const stopperEnv = "CLASSPROOF_TEST_STOPPER"

func init() {
	if os.Getenv(stopperEnv) == "" {
		return
	}
	if syscall.Setgroups(nil) != nil || syscall.Setresgid(stopperUID, stopperUID, stopperUID) != nil || syscall.Setresuid(stopperUID, stopperUID, stopperUID) != nil {
		os.Exit(2)
	}
	fmt.Println("stopping")
	for {
		_ = unix.Kill(-1, unix.SIGSTOP)
	}
}

// A process of the user's that does the kit's work is the user's to stop: the kit kills it at
// its bound and says so, and goes on.
func TestChildStoppedByTheUserIsKilledAtItsBound(t *testing.T) {
	rootOnly(t)
	stopper := exec.Command("/proc/self/exe", "-test.run=^$")
	stopper.Env = append(os.Environ(), stopperEnv+"=1")
	out, err := stopper.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := stopper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stopper.Process.Kill(); _ = stopper.Wait() })
	if _, err := out.Read(make([]byte, 9)); err != nil {
		t.Fatal(err)
	}
	// Enough work that the stopper finds the process: each path is looked at, none is there.
	var paths []string
	dir := t.TempDir()
	for i := 0; i < 10000; i++ {
		paths = append(paths, filepath.Join(dir, strconv.Itoa(i)))
	}
	start := time.Now()
	_, err = Child(stopperUID, stopperUID, time.Second, RemoveAll, paths...)
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "killed at its bound of 1s") {
		t.Fatalf("work as uid %d while a process of its kept stopping it: %v after %v; want it killed at its bound of 1s", stopperUID, err, took)
	}
	if took > time.Second+2*reapGrace {
		t.Errorf("the kit waited %v for work bounded at 1s", took)
	}
}

// Open hands back a descriptor of what only the user may open, and the kit reads it: here a
// 0600 file of the user's in a folder only it may pass, which root without its capabilities may
// not (nor may a thread with the user's fs ids only, once an effective uid is what counts).
func TestOpenHandsBackWhatTheUserMayOpen(t *testing.T) {
	rootOnly(t)
	dir, err := os.MkdirTemp("", "actas-open-") // 0700 in the temp folder: t.TempDir's parent is root's 0700
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("the user's"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{file, dir} {
		if err := os.Chown(p, nobody, nobody); err != nil {
			t.Fatal(err)
		}
	}
	f, err := openInChild(nobody, nobody, 10*time.Second, file, unix.O_RDONLY)
	if err != nil {
		t.Fatalf("opening %s as uid %d in a process of its own: %v", file, nobody, err)
	}
	b := make([]byte, 64)
	n, _ := f.Read(b)
	f.Close()
	if string(b[:n]) != "the user's" {
		t.Errorf("read %q through the descriptor handed back; want %q", b[:n], "the user's")
	}
	if _, err := openInChild(nobody, nobody, 10*time.Second, filepath.Join(dir, "none"), unix.O_RDONLY); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("opening a file that is not there as uid %d: %v; want its errno, not exist", nobody, err)
	}
	if _, err := openInChild(nobody, nobody, 10*time.Second, "/dev/null", unix.O_RDONLY); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("opening /dev/null as uid %d: %v; want a refusal, not a regular file", nobody, err)
	}
}
