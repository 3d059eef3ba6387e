package oracle

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// A process with one thread at another class fails every verdict, named by its tid: a class set
// on the main thread alone (sched_setscheduler(pid) after exec) leaves the others at normal.
func TestEveryThreadIsJudged(t *testing.T) {
	tid := make(chan int)
	done := make(chan struct{})
	var idle func()
	idle = func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		if unix.Gettid() == os.Getpid() {
			go idle() // this one holds the main thread; the next runs on another
			<-done
			return
		}
		if err := unix.SchedSetAttr(0, &unix.SchedAttr{Policy: unix.SCHED_IDLE}, 0); err != nil {
			tid <- -1
			return
		}
		tid <- unix.Gettid()
		<-done
	}
	go idle()
	off := <-tid
	defer close(done)
	if off < 0 {
		t.Skip("sched_setattr(SCHED_IDLE) on a thread of the test refused here")
	}
	self := Subject{Role: "this test", Pid: os.Getpid(), EveryThread: true}
	obs, err := Observe(self)
	if err != nil {
		t.Fatal(err)
	}
	o := obs[0]
	// Threads the runtime clones from that one since inherit its class: off too, and named.
	if !slices.ContainsFunc(o.OffThreads, func(s string) bool { return strings.HasPrefix(s, fmt.Sprintf("tid %d policy 5 SCHED_IDLE", off)) }) {
		t.Fatalf("off threads %q, want tid %d at SCHED_IDLE among them (%d threads read)", o.OffThreads, off, o.Threads)
	}
	if ok, why := SameClass(o, Observation{GOOS: o.GOOS, Pri: o.Pri, Nice: o.Nice, Cls: o.Cls, Policy: o.Policy, IOClass: o.IOClass, AutogroupNice: o.AutogroupNice}); ok || !strings.Contains(why, "threads not at the main thread's class") {
		t.Errorf("SameClass with one thread off: %v %q", ok, why)
	}
	if !strings.Contains(o.String(), fmt.Sprintf("tid %d", off)) {
		t.Errorf("the receipt does not name tid %d: %s", off, o)
	}
	// Read by its main thread alone (a launcher's own process), the same process has one class.
	self.EveryThread = false
	if obs, err = Observe(self); err != nil || len(obs[0].OffThreads) != 0 {
		t.Errorf("without EveryThread: %v %q", err, obs[0].OffThreads)
	}
}
