package faults

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// stormUID is the launcher's uid in these tests: one of their own, so that a storm's kill(-1)
// reaches only what they start (another test on the machine may run processes as nobody).
const stormUID = 61368

// stormEnv makes this test binary a process of stormUID's that, until it is killed, does to each
// thread of the pid it names what a launcher process may try on a thread that holds its ids:
// "prlimit:PID" sets RLIMIT_CPU to 1 s and RLIMIT_NOFILE to 16 (prlimit64, which
// kernel/sys.c check_prlimit_permission judges by the target thread's real, effective and saved
// ids, and which sets the whole process's limits), "stop:PID" sends SIGSTOP (tgkill, judged by
// kernel/signal.c kill_ok_by_cred, which stops the whole process), and to every process of the
// uid (kill -1). It prints each thread it reached, once.
const stormEnv = "CLASSPROOF_TEST_STORM"

// victimEnv makes this test binary a suite process that does a fault listener's as-user work
// (onBehalf, readAttr) on a sleep of stormUID's for the duration it names, then prints its
// limits before and after, and how many calls failed.
const victimEnv = "CLASSPROOF_TEST_VICTIM"

func init() {
	if v := os.Getenv(stormEnv); v != "" {
		storm(v)
	}
	if v := os.Getenv(victimEnv); v != "" {
		victim(v)
	}
}

func storm(spec string) {
	how, pidText, _ := strings.Cut(spec, ":")
	pid, _ := strconv.Atoi(pidText)
	if err := syscall.Setgroups(nil); err != nil {
		os.Exit(2)
	}
	if syscall.Setresgid(stormUID, stormUID, stormUID) != nil || syscall.Setresuid(stormUID, stormUID, stormUID) != nil {
		os.Exit(2)
	}
	reached := map[string]bool{}
	for {
		tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		if err != nil {
			os.Exit(0) // the victim is gone
		}
		for _, t := range tasks {
			tid, _ := strconv.Atoi(t.Name())
			var err error
			if how == "stop" {
				err = unix.Tgkill(pid, tid, unix.SIGSTOP)
				_ = unix.Kill(-1, unix.SIGSTOP)
			} else {
				err = errorsJoin(unix.Prlimit(tid, unix.RLIMIT_CPU, &unix.Rlimit{Cur: 1, Max: 1}, nil),
					unix.Prlimit(tid, unix.RLIMIT_NOFILE, &unix.Rlimit{Cur: 16, Max: 16}, nil))
			}
			if err == nil && !reached[t.Name()] {
				reached[t.Name()] = true
				fmt.Printf("%s reached thread %d of pid %d\n", how, tid, pid)
			}
		}
	}
}

func errorsJoin(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// limits is this process's RLIMIT_CPU and RLIMIT_NOFILE, as prlimit(1) would print them.
func limits() string {
	var cpu, nofile unix.Rlimit
	_ = unix.Getrlimit(unix.RLIMIT_CPU, &cpu)
	_ = unix.Getrlimit(unix.RLIMIT_NOFILE, &nofile)
	return fmt.Sprintf("cpu %d/%d nofile %d/%d", int64(cpu.Cur), int64(cpu.Max), nofile.Cur, nofile.Max)
}

func victim(duration string) {
	d, err := time.ParseDuration(duration)
	if err != nil {
		os.Exit(2)
	}
	before := limits()
	sleep := exec.Command("sleep", "60")
	sleep.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: stormUID, Gid: stormUID, Groups: []uint32{}}}
	if err := sleep.Start(); err != nil {
		fmt.Println("starting sleep:", err)
		os.Exit(2)
	}
	defer func() { _ = sleep.Process.Kill(); _ = sleep.Wait() }()
	pid := sleep.Process.Pid
	var addr uint64
	for end := time.Now().Add(5 * time.Second); addr == 0 && time.Now().Before(end); time.Sleep(time.Millisecond) {
		addr = readableAddr(pid)
	}
	fmt.Println("ready")
	c := caller{tid: pid, uid: stormUID, gid: stormUID, target: pid}
	calls, failed, first := 0, 0, ""
	for end := time.Now().Add(d); time.Now().Before(end); calls++ {
		nice := &notif{pid: uint32(pid), nr: int32(unix.SYS_SETPRIORITY), args: [6]uint64{unix.PRIO_PROCESS, uint64(pid), 10}}
		did := onBehalf(nice, c, nil, true)
		_, err := readAttr(&notif{pid: uint32(pid), nr: int32(unix.SYS_SCHED_SETATTR), args: [6]uint64{uint64(pid), addr}}, c)
		if strings.Contains(did, ": ") || err != nil {
			failed++
			if first == "" {
				first = fmt.Sprintf("%s / %v", did, err)
			}
		}
	}
	fmt.Printf("before %s\nafter %s\ncalls %d failed %d %s\n", before, limits(), calls, failed, first)
	os.Exit(0)
}

// readableAddr is the start of pid's first readable mapping, 0 while there is none to read.
func readableAddr(pid int) uint64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) > 1 && strings.HasPrefix(f[1], "r") && strings.Contains(line, "sleep") {
			start, _, _ := strings.Cut(f[0], "-")
			a, _ := strconv.ParseUint(start, 16, 64)
			return a
		}
	}
	return 0
}

// stormed runs a victim for 2 s under a storm of how ("prlimit" or "stop") and returns what the
// victim printed, what the storm reached, and how the victim ended.
func stormed(t *testing.T, how string) (victimSaid, reached string, ended error) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skipf("acting as a launcher's uid needs a root kit; this test runs as uid %d", os.Geteuid())
	}
	t.Cleanup(func() { killUID(stormUID) })
	v := exec.Command("/proc/self/exe", "-test.run=^$")
	v.Env = append(os.Environ(), victimEnv+"=2s")
	out, err := v.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewReader(out)
	if l, err := lines.ReadString('\n'); l != "ready\n" {
		_ = v.Process.Kill()
		_ = v.Wait()
		t.Fatalf("the victim, pid %d, did not start its work: %q %v", v.Process.Pid, l, err)
	}
	var stormOut bytes.Buffer
	s := exec.Command("/proc/self/exe", "-test.run=^$")
	s.Env = append(os.Environ(), stormEnv+"="+how+":"+strconv.Itoa(v.Process.Pid))
	s.Stdout = &stormOut
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	var rest bytes.Buffer
	go func() { _, _ = rest.ReadFrom(lines); done <- v.Wait() }()
	select {
	case ended = <-done:
	case <-time.After(60 * time.Second):
		stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", v.Process.Pid))
		_ = v.Process.Kill()
		ended = fmt.Errorf("no end 60 s after it began its 2 s of work; /proc/%d/stat: %s", v.Process.Pid, bytes.TrimSpace(stat))
		<-done
	}
	_ = s.Process.Kill()
	_ = s.Wait()
	return rest.String(), firstOf(stormOut.String()), ended
}

// firstOf says how many threads a storm's output names, and the first three.
func firstOf(out string) string {
	var lines []string
	if out = strings.TrimSpace(out); out != "" {
		lines = strings.Split(out, "\n")
	}
	return fmt.Sprintf("%d threads (%s)", len(lines), strings.Join(lines[:min(3, len(lines))], "; "))
}

// A launcher process may lower the limits of a process whose thread holds its ids; the suite
// process, which starts every launcher process and answers their class calls, keeps its own
// while one storms it during the work a fault listener does as the caller (issue 68, item 3).
func TestALaunchersPrlimitStormLeavesTheSuitesLimits(t *testing.T) {
	said, reached, ended := stormed(t, "prlimit")
	if ended != nil {
		t.Fatalf("the suite process died during a prlimit storm of uid %d's (%v); the storm's prlimit64 succeeded on: %s; it said: %s", stormUID, ended, reached, said)
	}
	var before, after string
	for _, l := range strings.Split(said, "\n") {
		if v, ok := strings.CutPrefix(l, "before "); ok {
			before = v
		}
		if v, ok := strings.CutPrefix(l, "after "); ok {
			after = v
		}
	}
	if before == "" || before != after {
		t.Fatalf("the suite process's limits were %q before a prlimit storm of uid %d's and %q after; the storm reached: %s", before, stormUID, after, reached)
	}
	t.Logf("limits %s kept; %s", after, strings.TrimSpace(said[strings.Index(said, "calls "):]))
}

// A launcher process may stop a process whose thread holds its ids (SIGSTOP stops every thread):
// the suite process runs on while one storms it and every process of the launcher's uid.
func TestALaunchersStopStormLeavesTheSuiteRunning(t *testing.T) {
	said, reached, ended := stormed(t, "stop")
	if ended != nil || !strings.Contains(said, "calls ") {
		t.Fatalf("the suite process did not finish its work during a SIGSTOP storm of uid %d's (%v); the storm's tgkill succeeded on: %s; it said: %s", stormUID, ended, reached, said)
	}
	t.Logf("%s", strings.TrimSpace(said[strings.Index(said, "calls "):]))
}

// killUID kills, one by one, every process of uid's (this test's uid of its own: what a killed
// victim left, its sleep, stopped or not).
func killUID(uid int) {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err == nil && strings.Contains(string(b), fmt.Sprintf("\nUid:\t%d\t", uid)) {
			_ = unix.Kill(pid, unix.SIGKILL)
		}
	}
}
