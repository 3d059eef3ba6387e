package proctable

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// A harness is what runs its code: a copy of the executable, and a memfd holding it, run the same
// image as the original; another executable does not, and a gone process is an error, not a no.
func TestAnImageIsKnownByContentNotByPath(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep here")
	}
	im, err := ImageOf(sleep)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(t.TempDir(), "not-sleep")
	copyFile(t, sleep, cp, 0o755)
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

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, mode); err != nil {
		t.Fatal(err)
	}
}
