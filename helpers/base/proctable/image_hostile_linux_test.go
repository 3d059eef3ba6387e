package proctable

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// patchELF64 writes v, little-endian, at off of the 64-bit ELF at path (x86-64, arm64: both LE).
func patchELF64(t *testing.T, path string, off int64, v uint64) {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	if _, err := f.WriteAt(b[:], off); err != nil {
		t.Fatal(err)
	}
}

// The kernel reads only an ELF's program headers to run it: a copy of the harness whose section
// header offset (e_shoff, at 0x28 of a 64-bit header) points a terabyte past its end runs as well,
// and Go's debug/elf refuses it. It is the harness (its loaded segments are), never a raw file
// that is "not the harness" with no error.
func TestACopyWithABrokenSectionTableIsStillTheHarness(t *testing.T) {
	sleep, im := sleepImage(t)
	cp := filepath.Join(t.TempDir(), "no-sections")
	copyFile(t, sleep, cp, 0o755)
	patchELF64(t, cp, 0x28, 1<<40)
	c := exec.Command(cp, "30")
	if err := c.Start(); err != nil {
		t.Fatalf("the kernel does not run %s: %v", cp, err)
	}
	defer func() { c.Process.Kill(); c.Wait() }()
	if runs, err := im.RunBy(c.Process.Pid); !runs || err != nil {
		t.Errorf("%s (pid %d), sleep with e_shoff 1<<40: runs the image %v, error %v; want true, nil", cp, c.Process.Pid, runs, err)
	}
}

// An executable with ELF magic whose program headers the kit cannot read is one it cannot tell
// from the harness: an error, never a raw file's hash (and "not the harness").
func TestABrokenELFIsAnErrorNotARawFile(t *testing.T) {
	sleep, im := sleepImage(t)
	cp := filepath.Join(t.TempDir(), "no-program-headers")
	copyFile(t, sleep, cp, 0o755)
	patchELF64(t, cp, 0x20, 1<<40) // e_phoff
	f, err := os.Open(cp)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if runs, err := im.runs(f); runs || err == nil {
		t.Errorf("%s, sleep with e_phoff 1<<40: runs the image %v, error %v; want false and an error", cp, runs, err)
	}
}

// A loader running a file the kit cannot parse returns the parse error, for Account to say it
// cannot tell: never "not loaded".
func TestALoaderRunningABrokenELFIsAnError(t *testing.T) {
	sleep, im := sleepImage(t)
	loaders, _ := filepath.Glob("/lib64/ld-linux-*.so.*")
	if len(loaders) == 0 {
		t.Skip("no dynamic loader found in /lib64")
	}
	cp := filepath.Join(t.TempDir(), "broken")
	copyFile(t, sleep, cp, 0o755)
	patchELF64(t, cp, 0x28, 1<<40) // e_shoff: the loader still runs it
	c := exec.Command(loaders[0], cp, "30")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { c.Process.Kill(); c.Wait() }()
	waitAsleep(t, c.Process.Pid)
	afterExec := func(pid int) ([]string, error) { return ArgsAfterExec(pid, 2*time.Second, time.Now().Add(time.Minute)) }
	if args, ok, err := im.LoadedBy(c.Process.Pid, afterExec); !ok || err != nil || len(args) != 2 || args[0] != cp {
		t.Errorf("%s %s 30 (pid %d): loaded with %q (%v, %v); want [%s 30], true, nil", loaders[0], cp, c.Process.Pid, args, ok, err, cp)
	}
	// A file named in its arguments that the kit cannot read is an error.
	patchELF64(t, cp, 0x20, 1<<40) // e_phoff now: the kit cannot read its segments
	if args, ok, err := im.LoadedBy(c.Process.Pid, afterExec); ok || err == nil {
		t.Errorf("%s %s 30 (pid %d), its e_phoff now 1<<40: loaded with %q (%v), error %v; want an error", loaders[0], cp, c.Process.Pid, args, ok, err)
	}
	if err := c.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the loader, pid %d, ended while the test read it (%v): the reading says nothing", c.Process.Pid, err)
	}
}

// waitAsleep waits, up to 10 s, for pid to sleep in nanosleep (x86-64 35 or 230, arm64 101 or
// 115): a loader reads the program's headers from its mapping while it loads it, so one patched
// before then reads the broken value and dies (a container rehearsal saw it, a slow start).
func waitAsleep(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/syscall", pid))
		if f := strings.Fields(string(b)); len(f) > 0 && slices.Contains([]string{"35", "230", "101", "115"}, f[0]) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pid %d was not asleep within 10 s: /proc/%d/syscall says %q", pid, pid, b)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
