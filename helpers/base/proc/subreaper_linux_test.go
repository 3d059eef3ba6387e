//go:build linux

// Linux only: the test waits for an orphan to be reparented to the test process, which only a
// Linux subreaper (PR_SET_CHILD_SUBREAPER) gets. macOS has none (subreaper_darwin.go): XNU hands
// every orphan to launchd (bsd/kern/kern_exit.c, proc_reparentlocked(..., initproc, ...)), and
// the orphan would never become this process's zombie there.

package proc

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/classproof/classproof/helpers/base/proctable"
)

// As a subreaper the kit inherits orphans; a cleanup reaps their zombies, which nobody else
// would, and leaves alone the children that os/exec waits for.
func TestCleanupReapsOrphanZombies(t *testing.T) {
	subreaper(t)
	out, err := exec.Command("sh", "-c", "sleep 0.05 & echo $!").Output()
	if err != nil {
		t.Fatal(err)
	}
	orphan, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if in, lerr := proctable.Lookup(orphan); lerr == nil && in.Zombie && in.Ppid == os.Getpid() {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if in, lerr := proctable.Lookup(orphan); lerr != nil || !in.Zombie {
		t.Fatalf("pid %d did not become our orphan zombie: %+v %v", orphan, in, lerr)
	}
	kept := exec.Command("sleep", "0.01")
	if err := kept.Start(); err != nil {
		t.Fatal(err)
	}
	s := &Set{}
	s.TrackOwned("owned sleep", kept.Process.Pid)
	for i := 0; i < 500; i++ { // until the owned sleep has exited and waits for its own Wait
		if in, lerr := proctable.Lookup(kept.Process.Pid); lerr == nil && in.Zombie {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := (&Set{}).KillAll(time.Second); err != nil {
		t.Fatal(err)
	}
	if _, lerr := proctable.Lookup(orphan); lerr == nil {
		t.Errorf("the orphan zombie %d is still there after a cleanup", orphan)
	}
	if err := kept.Wait(); err != nil {
		t.Errorf("the cleanup reaped a child os/exec waits for: %v", err)
	}
}

// endSubreaper undoes BecomeSubreaper: a test that made the test process the reaper of its
// orphans must not leave it one for the tests after it, whose orphans would come back to it.
func endSubreaper() error { return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0) }
