package proctable

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A harness is what runs its code: a copy of the executable, a copy with bytes appended (never
// loaded), and a memfd holding it, run the same image as the original; another executable does
// not, and a gone process is an error, not a no.
func TestAnImageIsKnownByContentNotByPath(t *testing.T) {
	sleep, im := sleepImage(t)
	cp := filepath.Join(t.TempDir(), "not-sleep")
	copyFile(t, sleep, cp, 0o755)
	padded := filepath.Join(t.TempDir(), "padded")
	copyFile(t, sleep, padded, 0o755)
	pf, err := os.OpenFile(padded, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	pf.Write(make([]byte, 4096)) // past every loaded segment: it runs the same code
	pf.Close()
	mem, err := unix.MemfdCreate("harness", 0)
	if err != nil {
		t.Fatal(err)
	}
	mf := os.NewFile(uintptr(mem), "memfd")
	defer mf.Close()
	src, _ := os.Open(sleep)
	if _, err := io.Copy(mf, src); err != nil {
		t.Fatal(err)
	}
	src.Close()
	start := func(path string, extra ...*os.File) int {
		c := exec.Command(path, "30")
		if path == "sh" {
			c = exec.Command(path, "-c", "sleep 30; :") // sh itself waits, as another binary
		}
		c.ExtraFiles = extra
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
		return c.Process.Pid
	}
	for name, c := range map[string]struct {
		pid  int
		want bool
	}{
		"the original":   {start(sleep), true},
		"a copy":         {start(cp), true},
		"a padded copy":  {start(padded), true},
		"a memfd of it":  {start("/dev/fd/3", mf), true},
		"another binary": {start("sh"), false},
	} {
		got, err := im.RunBy(c.pid)
		if err != nil || got != c.want {
			t.Errorf("%s (pid %d): runs the image %v, %v; want %v", name, c.pid, got, err, c.want)
		}
	}
	if _, err := im.RunBy(1 << 30); err == nil {
		t.Error("a pid with no process: no error")
	}
}

// sleepImage is this machine's sleep and its image: the executable the image tests copy, patch
// and run. A machine with no sleep skips the test.
func sleepImage(t *testing.T) (string, Image) {
	t.Helper()
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep here")
	}
	im, err := ImageOf(sleep)
	if err != nil {
		t.Fatal(err)
	}
	return sleep, im
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, mode); err != nil {
		t.Fatal(err)
	}
}

// The dynamic loader can run a program named in its arguments (ld.so PROGRAM ...): /proc/PID/exe is
// then the loader, and LoadedBy finds the program's image where the arguments name it.
func TestAnImageRunByTheLoaderIsFound(t *testing.T) {
	sleep, im := sleepImage(t)
	loaders, _ := filepath.Glob("/lib64/ld-linux-*.so.*")
	if more, _ := filepath.Glob("/lib/ld-*.so.*"); len(more) > 0 {
		loaders = append(loaders, more...)
	}
	if len(loaders) == 0 {
		t.Skip("no dynamic loader found in /lib64 or /lib")
	}
	cp := filepath.Join(t.TempDir(), "elsewhere")
	copyFile(t, sleep, cp, 0o755)
	c := exec.Command(loaders[0], cp, "30")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { c.Process.Kill(); c.Wait() }()
	// Start returns once the child has exec'd: its executable is the loader now, though its
	// arguments may show only later (fs/proc/base.c, get_mm_cmdline: nothing before env_end is set).
	runs, rerr := im.RunBy(c.Process.Pid)
	afterExec := func(pid int) ([]string, error) { return ArgsAfterExec(pid, 2*time.Second, time.Now().Add(time.Minute)) }
	if args, ok, err := im.LoadedBy(c.Process.Pid, afterExec); runs || !ok || err != nil || len(args) != 2 || args[0] != cp {
		t.Errorf("%s %s: runs the image itself %v (%v), loaded with %q (%v, %v); want false, then [%s 30]", loaders[0], cp, runs, rerr, args, ok, err, cp)
	}
	// A loader whose arguments cannot be read (in the middle of exec) is no loader that runs
	// something else: the error comes back, for Account to name.
	none := func(pid int) ([]string, error) { return nil, fmt.Errorf("pid %d: %w", pid, ErrNoArgs) }
	if args, ok, err := im.LoadedBy(c.Process.Pid, none); ok || !errors.Is(err, ErrNoArgs) {
		t.Errorf("%s %s showing no arguments: loaded with %q (%v), error %v; want %v", loaders[0], cp, args, ok, err, ErrNoArgs)
	}
}
