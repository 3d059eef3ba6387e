package launcher

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

	"github.com/classproof/classproof/helpers/base/proctable"
)

// A live process where the dynamic loader runs a copy of the harness the kit cannot parse (its
// program headers point past its end) is one the kit cannot tell about, never "not a harness";
// the same copy with only its section table broken (the kernel and the loader never read it) is
// the harness.
func TestALoaderRunningAnUnreadableCopyCannotBeTold(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep here")
	}
	loaders, _ := filepath.Glob("/lib64/ld-linux-*.so.*")
	if len(loaders) == 0 {
		t.Skip("no dynamic loader found in /lib64")
	}
	im, err := proctable.ImageOf(sleep)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint64(b[0x28:], 1<<40) // e_shoff
	cp := filepath.Join(t.TempDir(), "copy")
	if err := os.WriteFile(cp, b, 0o755); err != nil {
		t.Fatal(err)
	}
	c := exec.Command(loaders[0], cp, "30")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { c.Process.Kill(); c.Wait() }()
	pid := c.Process.Pid
	// The loader reads the program's headers from its mapping while it loads it: patched before
	// then, it reads the broken value and dies (a loaded host saw it). Asleep, it is done.
	asleep := time.Now().Add(10 * time.Second)
	for {
		s, _ := os.ReadFile(fmt.Sprintf("/proc/%d/syscall", pid))
		if f := strings.Fields(string(s)); len(f) > 0 && slices.Contains([]string{"35", "230", "101", "115"}, f[0]) {
			break
		}
		if time.Now().After(asleep) {
			t.Fatalf("pid %d was not asleep in nanosleep within 10 s: /proc/%d/syscall says %q", pid, pid, s)
		}
		time.Sleep(10 * time.Millisecond)
	}
	deadline := time.Now().Add(time.Minute)
	if args, harness, cantTell := harnessArgs(im, pid, false, deadline); !harness || cantTell != "" || len(args) != 2 {
		t.Errorf("%s %s 30 (pid %d), e_shoff 1<<40: args %q, harness %v, cannot tell %q; want [%s 30], a harness", loaders[0], cp, pid, args, harness, cantTell, cp)
	}
	// e_phoff now: the kit cannot read what it loads. Written in place: a truncation would take
	// the loaded pages from the running process.
	f, err := os.OpenFile(cp, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	var off [8]byte
	binary.LittleEndian.PutUint64(off[:], 1<<40)
	_, err = f.WriteAt(off[:], 0x20)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if args, harness, cantTell := harnessArgs(im, pid, false, deadline); harness || cantTell == "" {
		t.Errorf("%s %s 30 (pid %d), its e_phoff now 1<<40: args %q, harness %v, cannot tell %q; want cannot tell", loaders[0], cp, pid, args, harness, cantTell)
	}
	if err := c.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the loader, pid %d, ended while the test read it (%v): the reading says nothing", pid, err)
	}
}
