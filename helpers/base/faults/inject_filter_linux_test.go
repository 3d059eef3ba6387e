package faults

import (
	"runtime"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// runBPF runs a classic BPF seccomp program, as the kernel would, on a call's arch and number:
// the program is checked without a kernel that has every ABI (this machine's has no i386 one).
func runBPF(t *testing.T, prog []unix.SockFilter, arch, nr uint32) uint32 {
	t.Helper()
	var a uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.Code {
		case unix.BPF_LD | unix.BPF_W | unix.BPF_ABS:
			a = map[uint32]uint32{offArch: arch, offNr: nr}[in.K]
		case unix.BPF_ALU | unix.BPF_AND | unix.BPF_K:
			a &= in.K
		case unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K:
			if a == in.K {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		case unix.BPF_JMP | unix.BPF_JA:
			pc += int(in.K)
		case unix.BPF_RET | unix.BPF_K:
			return in.K
		default:
			t.Fatalf("instruction %d: code %#x the test does not know", pc, in.Code)
		}
	}
	t.Fatal("the program ran off its end")
	return 0
}

// The filter for a fault, or for the probe's every call, sends each of its calls to the listener
// through every ABI (native, x32's bit, the compat table and, for setpriority, its nice(2)), and
// allows every other call: once a compat call went straight to ALLOW, through one jump too short,
// and a 32-bit launcher's class call passed every fault untouched.
func TestTheFilterTakesItsCallsInEveryABIAndNothingElse(t *testing.T) {
	if nativeArch() == 0 {
		t.Skipf("no fault is injected on %s", runtime.GOARCH)
	}
	for _, calls := range [][]string{{"sched_setscheduler"}, {"setpriority"}, {"ioprio_set"}, probeCalls()} {
		prog := filterFor(calls)
		for _, c := range probeCalls() {
			want := uint32(unix.SECCOMP_RET_ALLOW)
			if slices.Contains(calls, c) {
				want = unix.SECCOMP_RET_USER_NOTIF
			}
			ways := map[string][2]uint32{
				"native": {nativeArch(), uint32(Syscalls[c])},
				"compat": {compatArch(), compatCalls[runtime.GOARCH][c]},
			}
			if runtime.GOARCH == "amd64" {
				ways["x32"] = [2]uint32{nativeArch(), uint32(Syscalls[c]) | x32Bit}
			}
			if c == "setpriority" {
				ways["compat nice(2)"] = [2]uint32{compatArch(), compatNice}
			}
			for way, an := range ways {
				if got := runBPF(t, prog, an[0], an[1]); got != want {
					t.Errorf("filter for %v: %s through %s (arch %#x nr %d) -> %#x, want %#x", calls, c, way, an[0], an[1], got, want)
				}
			}
		}
		for _, other := range [][2]uint32{{nativeArch(), 0}, {nativeArch(), unix.SYS_GETPID}, {compatArch(), 1}, {unix.AUDIT_ARCH_MIPS, uint32(Syscalls[calls[0]])}} {
			if got := runBPF(t, prog, other[0], other[1]); got != unix.SECCOMP_RET_ALLOW {
				t.Errorf("filter for %v: arch %#x nr %d -> %#x, want ALLOW", calls, other[0], other[1], got)
			}
		}
	}
}
