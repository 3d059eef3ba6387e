package faults

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/classproof/classproof/helpers/base/confine"
	"github.com/classproof/classproof/helpers/base/contract"
)

// niceCallSource is testdata/nicecall.c: a program that makes setpriority(PRIO_PROCESS, 0, 10) N
// times through one ABI, prints the first answer, then execs the rest of its arguments.
const niceCallSource = "testdata/nicecall.c"

// A class call through another ABI is answered by the same fault (issue 54: int $0x80 passed the
// filter untouched, and the run said the fault never fired); and a flood of calls is counted in
// memory, whole, while the log keeps its first MaxLoggedCalls lines.
func TestAFaultTakesEveryABIAndCountsAFlood(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skipf("the i386 and x32 ABIs are x86-64's; this is %s", runtime.GOARCH)
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skipf("no C compiler to build the int $0x80 caller: %v", err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "nicecall")
	if out, err := exec.Command(cc, "-O1", "-o", bin, niceCallSource).CombinedOutput(); err != nil {
		t.Fatalf("building the caller: %v\n%s", err, out)
	}
	run := func(t *testing.T, sp *confine.Spawner, abi string, n int) (string, int) {
		return runCaller(t, bin, sp, abi, n)
	}
	for _, abi := range []string{"native", "i386", "x32", "i386-nice"} {
		t.Run(abi, func(t *testing.T) {
			// The control: without the fault the call works through this ABI, or the kernel has no
			// such ABI (ENOSYS) and there is nothing to take.
			// The filter sees a call before the kernel looks its number up, so an x32 call is taken
			// even where the kernel has no x32 ABI (ENOSYS without the fault).
			if said, nice := run(t, nil, abi, 1); (said != "0" || nice != 10) && abi != "x32" {
				if why := refusedAround(said); why != "" {
					t.Skipf("the %s call %s", abi, why)
				}
				t.Skipf("this kernel has no working %s ABI for setpriority (it answered %s, nice %d)", abi, said, nice)
			}
			log := filepath.Join(t.TempDir(), "injected.log")
			t.Setenv(contract.InjectEnv, "setpriority")
			t.Setenv(contract.InjectLogEnv, log)
			before := answered.Load()
			sp, _ := injected(t, t.TempDir())
			said, nice := run(t, sp, abi, 1)
			sp.Close()
			n, found, err := InjectedCount(log)
			if said != "0" || nice != 0 || err != nil || !found || n != before+1 {
				t.Errorf("setpriority through the %s ABI under the silent fault: answered %s, nice %d (want 0: nothing applied); count %d, %v, %v (want %d)", abi, said, nice, n, found, err, before+1)
			}
			if b, _ := os.ReadFile(log); abi != "native" && !strings.Contains(string(b), "ABI") {
				t.Errorf("the log does not say which ABI the call came through: %q", b)
			}
		})
	}
	t.Run("a flood", func(t *testing.T) {
		log := filepath.Join(t.TempDir(), "injected.log")
		t.Setenv(contract.InjectEnv, "setpriority")
		t.Setenv(contract.InjectLogEnv, log)
		before, loggedBefore := answered.Load(), logged.Load()
		t.Cleanup(func() { logged.Store(loggedBefore) }) // the other tests read their calls in the log
		sp, _ := injected(t, t.TempDir())
		calls := 100000
		if testing.Short() {
			// Past the log's bound all the same, in seconds where the rehearsals' emulated VM
			// takes minutes over 100000 notified calls (ci/kernel-tests runs -test.short).
			calls = 3 * MaxLoggedCalls
		}
		run(t, sp, "native", calls)
		sp.Close()
		n, _, err := InjectedCount(log)
		b, _ := os.ReadFile(log)
		lines := strings.Count(string(b), "\n")
		want := max(0, MaxLoggedCalls-int(loggedBefore)) + 1 // the lines left to log, then the one "#" line
		if err != nil || n != before+int64(calls) || lines != want || !strings.Contains(string(b), "counted, not logged") {
			t.Errorf("a flood of %d calls: counted %d (want %d, %v); the log has %d lines (want %d, bounded) of %d bytes", calls, n-before, calls, err, lines, want, len(b))
		}
	})
}

// refusedAround says why a call the caller made without any filter of the kit's answered said:
// -1 (EPERM), which no kernel answers to a process raising its own nice, is a seccomp filter this
// test already runs under refusing it (a container's: Docker's default profile refuses i386
// nice(2)); its refusal outranks whatever a filter of the kit's would do, which never sees the
// call. "" for any other answer.
func refusedAround(said string) string {
	if said != "-1" {
		return ""
	}
	status, _ := os.ReadFile("/proc/self/status")
	var mode []string
	for _, line := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(line, "Seccomp") {
			mode = append(mode, strings.Join(strings.Fields(line), " "))
		}
	}
	return fmt.Sprintf("is refused with EPERM before the kernel runs it (this test's %s): a seccomp filter around the test refuses it, and no filter of the kit's ever sees it", strings.Join(mode, ", "))
}

// runCaller starts the caller bin (testdata/nicecall.c) making n setpriority calls through abi,
// with sp if given, and returns its first answer and the nice of the sleep it then execs.
func runCaller(t *testing.T, bin string, sp *confine.Spawner, abi string, n int) (string, int) {
	t.Helper()
	cmd := exec.Command(bin, abi, strconv.Itoa(n), "sleep", "30")
	pr, pw, _ := os.Pipe()
	cmd.Stdout = pw
	start := func(c *exec.Cmd) error { return c.Start() }
	if sp != nil {
		start = sp.Start
	}
	if err := start(cmd); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	line := make([]byte, 32)
	k, _ := pr.Read(line)
	pr.Close()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if b, _ := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/comm"); strings.TrimSpace(string(b)) == "sleep" {
			break
		}
	}
	p, err := unix.Getpriority(unix.PRIO_PROCESS, cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(line[:k])), 20 - p
}

// The probe changes nothing and counts every class call, through every ABI, by call and by the
// Spawner whose processes made it: a kill matrix skips a fault whose call it never saw, and runs
// a fault only in the specs where it came, so a call the probe missed would be a fault row
// called "never fired" that could have been caught.
func TestTheProbeCountsEveryCallAndChangesNone(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skipf("the i386 and x32 ABIs are x86-64's; this is %s", runtime.GOARCH)
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skipf("no C compiler to build the int $0x80 caller: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "nicecall")
	if out, err := exec.Command(cc, "-O1", "-o", bin, niceCallSource).CombinedOutput(); err != nil {
		t.Fatalf("building the caller: %v\n%s", err, out)
	}
	for _, abi := range []string{"native", "i386", "x32", "i386-nice"} {
		t.Run(abi, func(t *testing.T) {
			// The control: what the call does without the probe (an x32 call where the kernel
			// has no x32 ABI answers ENOSYS, and the filter still sees it); a caller the kernel
			// kills (int $0x80 without IA32 emulation) makes no call. The control makes as many
			// calls as the probed run: i386's nice(2) is relative, so three calls are not one.
			const calls = 3
			wantSaid, wantNice := runCaller(t, bin, nil, abi, calls)
			if wantSaid == "" {
				t.Skipf("this kernel has no %s ABI: the caller was killed before it could answer", abi)
			}
			if why := refusedAround(wantSaid); why != "" {
				t.Skipf("the %s call %s", abi, why)
			}
			t.Setenv(contract.InjectEnv, Probe)
			t.Setenv(contract.InjectLogEnv, filepath.Join(t.TempDir(), "injected.log"))
			sp, in := injected(t, t.TempDir())
			said, nice := runCaller(t, bin, sp, abi, calls)
			counted := in.Calls()
			sp.Close()
			if said != wantSaid || nice != wantNice || counted["setpriority"] != calls || len(counted) != 1 {
				t.Errorf("%d setpriority calls through the %s ABI under the probe: answered %s, nice %d (want %s and %d, as %d calls without it); counted %v (want setpriority %d, nothing else)", calls, abi, said, nice, wantSaid, wantNice, calls, counted, calls)
			}
			other, otherIn := injected(t, t.TempDir())
			runCaller(t, bin, other, "native", 1)
			if got := otherIn.Calls(); got["setpriority"] != 1 {
				t.Errorf("another Spawner's processes: counted %v, want its own 1 call", got)
			}
			other.Close()
		})
	}
}
