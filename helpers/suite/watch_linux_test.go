package suite

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/classproof/classproof/helpers/base/proctable"
	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/oracle"
)

// watchChildEnv makes this test binary a harness-like child (watchChild) instead of running tests.
const watchChildEnv = "CLASSPROOF_TEST_WATCH_CHILD"

// The main goroutine keeps the main thread, as the kit's harness does: the child's main thread,
// its leader, is the one that exits first.
func init() { runtime.LockOSThread() }

func TestMain(m *testing.M) {
	if mode := os.Getenv(watchChildEnv); mode != "" {
		watchChild(mode)
		return
	}
	os.Exit(m.Run())
}

const ioprioIdle = 3 << 13 // IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 0)

// watchChild is a harness at background class: a few threads, every one at SCHED_IDLE and I/O
// class idle, then "ready" on stdout. At a line on stdin (or its end) mode "exit" ends the process
// from its main thread (exit_group from the leader: the other threads die after it), "exit-off"
// from another thread, and "leader" ends the main thread alone (SYS_exit): the others run on
// until killed.
func watchChild(mode string) {
	for i := 0; i < 3; i++ {
		go func() { runtime.LockOSThread(); select {} }()
	}
	// Until three passes in a row find nothing to set: a thread the runtime was cloning from an
	// unset one as a pass listed the others has its creator's class.
	for clean := 0; clean < 3; {
		settled := true
		tasks, _ := os.ReadDir("/proc/self/task")
		for _, e := range tasks {
			tid, _ := strconv.Atoi(e.Name())
			a, err := unix.SchedGetAttr(tid, 0)
			io, _, _ := unix.Syscall(unix.SYS_IOPRIO_GET, 1, uintptr(tid), 0)
			if err == nil && a.Policy == unix.SCHED_IDLE && io == ioprioIdle {
				continue
			}
			settled = false
			if err := unix.SchedSetAttr(tid, &unix.SchedAttr{Policy: unix.SCHED_IDLE}, 0); err != nil {
				fmt.Println("refused: sched_setattr(SCHED_IDLE):", err)
				os.Exit(3)
			}
			if _, _, e := unix.Syscall(unix.SYS_IOPRIO_SET, 1, uintptr(tid), ioprioIdle); e != 0 {
				fmt.Println("refused: ioprio_set(idle):", e)
				os.Exit(3)
			}
		}
		if clean++; !settled {
			clean = 0
		}
		time.Sleep(time.Millisecond)
	}
	fmt.Println("ready")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	switch mode {
	case "leader":
		unix.RawSyscall(unix.SYS_EXIT, 0, 0, 0)
	case "exit-off":
		go func() { runtime.LockOSThread(); os.Exit(0) }()
		select {}
	}
	os.Exit(0)
}

// idleChild is a watchChild started in mode, ready, as the kit keeps a harness it verified.
type idleChild struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	start launcher.Started
}

func startIdleChild(t *testing.T, mode string) *idleChild {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), watchChildEnv+"="+mode)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &idleChild{cmd: cmd, stdin: in}
	t.Cleanup(c.end)
	line, _ := bufio.NewReader(out).ReadString('\n')
	if strings.HasPrefix(line, "refused: ") {
		t.Skipf("the child may not enter background class here (a seccomp filter, say): %s", line)
	}
	if line != "ready\n" {
		t.Fatalf("the idle child did not get ready: %q", line)
	}
	pid := cmd.Process.Pid
	self, _ := proctable.Lookup(pid)
	first, err := oracle.Read(pid)
	if err != nil {
		t.Fatal(err)
	}
	for tid, class := range first.Threads {
		if !strings.Contains(class, "SCHED_IDLE") || !strings.Contains(class, "io class idle") {
			t.Fatalf("tid %d of the idle child reads %q", tid, class)
		}
	}
	c.start = launcher.Started{Subject: oracle.Subject{Role: "test harness", Pid: pid}, Start: self.Start, Session: "watch-test",
		Seen: time.Now(), First: first}
	return c
}

// end kills and reaps the child, whatever it did.
func (c *idleChild) end() {
	_ = c.cmd.Process.Kill()
	_ = c.cmd.Wait()
}

// watchedAlone is a watcher that knows c alone, and c as it watches it.
func watchedAlone(c *idleChild) (*watcher, *watched) {
	w := &watcher{procs: map[procKey]*watched{}}
	w.sample([]launcher.Started{c.start})
	return w, w.procs[procKey{c.start.Pid, c.start.Start}]
}

// A harness at background class that exits while the watch reads it is no renice (issue 66): the
// kernel frees an exiting task's I/O context (kernel/exit.c, exit_io_context after exit_notify),
// its I/O class then reads none, and a leader gone ahead of its threads is a zombie that the
// process table calls alive. Hundreds of exits, half from the leader and half from another
// thread, each read as fast as the watch can (a 100µs pause, not to hog a CPU the exit needs).
func TestWatchSeesNoChangeInAnExit(t *testing.T) {
	const exits = 300
	modes := []string{"exit", "exit-off"}
	start := time.Now()
	deadline := start.Add(30 * time.Second)
	var n, changed int
	var tried, seen [2]int
	example := ""
	for ; n < exits && time.Now().Before(deadline); n++ {
		c := startIdleChild(t, modes[n%2])
		w, p := watchedAlone(c)
		_ = c.stdin.Close()
		for end := time.Now().Add(10 * time.Second); !p.done && time.Now().Before(end); {
			w.sample([]launcher.Started{c.start})
			time.Sleep(100 * time.Microsecond)
		}
		c.end()
		tried[n%2]++
		if p.change != "" || p.readErr != "" {
			changed++
			seen[n%2]++
			example = p.change + p.readErr
		}
		if !p.done {
			n++ // read for 10 s as it exited, starved: no fault of the watch's, and time to stop
			t.Logf("exit %d: pid %d still exiting after 10s; stopping there", n, c.start.Pid)
			break
		}
	}
	if changed > 0 {
		t.Fatalf("%d of %d exits read as a change (%d of %d from the leader, %d of %d from another thread), as: %s",
			changed, n, seen[0], tried[0], seen[1], tried[1], example)
	}
	t.Logf("%d exits in %v, none read as a change", n, time.Since(start).Round(time.Second))
}

// raise moves tid off background class as a focus raise does: to SCHED_OTHER and I/O class none
// where this test may (root), else to I/O class best-effort, which any owner may set.
func raise(t *testing.T, tid int) string {
	t.Helper()
	if os.Geteuid() == 0 {
		if err := unix.SchedSetAttr(tid, &unix.SchedAttr{Policy: unix.SCHED_NORMAL}, 0); err != nil {
			t.Fatal(err)
		}
		if _, _, e := unix.Syscall(unix.SYS_IOPRIO_SET, 1, uintptr(tid), 0); e != 0 {
			t.Fatal(e)
		}
		return "policy 0 SCHED_OTHER nice 0 rt 0 io class none level 0, first policy 5 SCHED_IDLE"
	}
	if _, _, e := unix.Syscall(unix.SYS_IOPRIO_SET, 1, uintptr(tid), 2<<13|4); e != 0 {
		t.Fatal(e)
	}
	return "policy 5 SCHED_IDLE nice 0 rt 0 io class be level 4, first policy 5 SCHED_IDLE"
}

// A raise of a running harness is seen at the watch's next reading, not one later: what keeps an
// exit from reading as a change costs nothing in catching a real one.
func TestWatchSeesARaiseAtOnce(t *testing.T) {
	c := startIdleChild(t, "exit")
	w, p := watchedAlone(c)
	w.sample([]launcher.Started{c.start})
	if p.change != "" || p.done {
		t.Fatalf("before any raise: change %q, done %v", p.change, p.done)
	}
	var want string
	for tid := range c.start.First.Threads {
		want = raise(t, int(tid))
	}
	w.sample([]launcher.Started{c.start})
	if !strings.Contains(p.change, want) || !strings.Contains(p.change, fmt.Sprintf("tid %d", c.start.Pid)) {
		t.Fatalf("every thread of pid %d raised, the watch's next reading says %q; expected %q of each", c.start.Pid, p.change, want)
	}
	if got := w.changes([]launcher.Started{c.start}); len(got) != 1 || got[0] != p.change {
		t.Errorf("changes: %q, expected the one change", got)
	}
}

// A leader thread that exits alone (SYS_exit) is a zombie while its threads run on: its class
// reads none from then on, which is no change, and the process is still watched: a raise of a
// live thread of it is seen, named by that thread.
func TestWatchKeepsWatchingAProcessWhoseLeaderExited(t *testing.T) {
	c := startIdleChild(t, "leader")
	w, p := watchedAlone(c)
	pid := c.start.Pid
	_, _ = io.WriteString(c.stdin, "go\n")
	for end := time.Now().Add(10 * time.Second); ; {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/stat", pid, pid))
		if st, err := proctable.ParseStat(b); err == nil && st.State == 'Z' {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the leader of pid %d did not exit: %q", pid, b)
		}
		w.sample([]launcher.Started{c.start})
	}
	for i := 0; i < 20; i++ {
		w.sample([]launcher.Started{c.start})
	}
	if p.change != "" || p.readErr != "" || p.done {
		t.Fatalf("the leader exited alone, its threads live: change %q, read error %q, done %v", p.change, p.readErr, p.done)
	}
	var tid int
	for id := range c.start.First.Threads {
		if int(id) != pid {
			tid = int(id)
			break
		}
	}
	want := raise(t, tid)
	w.sample([]launcher.Started{c.start})
	if !strings.Contains(p.change, fmt.Sprintf("tid %d: %s", tid, want)) || strings.Contains(p.change, fmt.Sprintf("tid %d:", pid)) {
		t.Fatalf("tid %d of pid %d raised after its leader exited; the watch says %q, expected %q of it alone", tid, pid, p.change, want)
	}
	// The whole process ends now: still no other change.
	c.end()
	w.sample([]launcher.Started{c.start})
	if !p.done {
		t.Errorf("pid %d reaped, still watched", pid)
	}
}
