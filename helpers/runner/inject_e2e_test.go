//go:build e2e

package runner_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// An injected fault counts every call it answers (issue 54): a daemon that makes 100000 cheap
// setpriority calls before it starts, or one through the i386 ABI (int $0x80), is a fault that
// fired, counted whole, with a log of at most a thousand lines a process; once, the log grew past
// what the run read back and the row read "never fired", and the i386 call passed untouched.
func TestAFloodOrAnotherABIIsCountedAsFired(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and starts runs")
	}
	if runtime.GOARCH != "amd64" {
		t.Skipf("the i386 ABI is x86-64's; this is %s", runtime.GOARCH)
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skipf("no C compiler to build the caller: %v", err)
	}
	dir := reachable(t)
	bin := filepath.Join(dir, "nicecall")
	if out, err := exec.Command(cc, "-O1", "-o", bin, filepath.Join(kitDir(t), "helpers/base/faults/testdata/nicecall.c")).CombinedOutput(); err != nil {
		t.Fatalf("building the caller: %v\n%s", err, out)
	}
	answered := regexp.MustCompile(`fault injected: setpriority[^\n]*, (\d+) calls answered`)
	for _, c := range []struct {
		abi   string
		calls int
	}{{"native", 100000}, {"i386", 1}} {
		t.Run(c.abi, func(t *testing.T) {
			// The control: without the fault the call works through this ABI, or this kernel has
			// none (built without IA32 emulation, or booted with ia32_emulation=0: int $0x80 is a
			// SIGSEGV) and no launcher can make the call here.
			if out, err := exec.Command(bin, c.abi, "1", "true").Output(); err != nil || strings.TrimSpace(string(out)) != "0" {
				t.Skipf("this kernel has no working %s ABI for setpriority (without the fault the caller said %q, %v)", c.abi, out, err)
			}
			m := hostile(t, `  run: ["{bin}/refmux", daemon,`, `  run: ["`+bin+`", `+c.abi+`, "`+strconv.Itoa(c.calls)+`", "{bin}/refmux", daemon,`)
			out := t.TempDir()
			_, log, took := runCLI(t, nil, "run", "--target", m, "--inject", "setpriority", "--suite", "./suites/cpuclass", "--focus", oneSpec, "--out", out)
			got := answered.FindStringSubmatch(log)
			n := 0
			if got != nil {
				n, _ = strconv.Atoi(got[1])
			}
			b, _ := os.ReadFile(filepath.Join(out, "injected.log"))
			lines := strings.Count(string(b), "\n")
			t.Logf("%s x%d: %d calls answered, %d log lines (%d bytes), %v", c.abi, c.calls, n, lines, len(b), took)
			if n < c.calls || lines > 1001+2*c.calls/100000 {
				t.Errorf("%d calls through the %s ABI: %d answered, a log of %d lines; want at least %d and a bounded log:\n%s", c.calls, c.abi, n, lines, c.calls, log)
			}
			if c.abi == "i386" && !strings.Contains(string(b), "through the i386 ABI") {
				t.Errorf("the log does not say the call came through the i386 ABI: %q", b)
			}
		})
	}
}
