package faults

import (
	"runtime"
	"strings"

	"golang.org/x/sys/unix"
)

// nativeArch is the audit arch of the kit's own system call table; 0 on an architecture whose
// tables the filter does not know, where no fault is injected (parseFault refuses it).
func nativeArch() uint32 {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64
	}
	return 0
}

// A class call can be made through another ABI than the kit's: a 64-bit x86 process may call
// int $0x80 (the i386 table) or set the x32 bit, an arm64 one may run 32-bit code. The filter takes
// those too, answered by the same fault, or a class step through them would pass untouched and the
// fault read as "never fired". compatArch is that other table's audit arch, compatCalls its numbers
// (arch/x86/entry/syscalls/syscall_32.tbl, arch/arm/tools/syscall.tbl; x/sys/unix's zsysnum
// files for 386 and arm agree).
func compatArch() uint32 {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_I386
	case "arm64":
		return unix.AUDIT_ARCH_ARM
	}
	return 0
}

var compatCalls = map[string]map[string]uint32{
	"amd64": {"sched_setscheduler": 156, "setpriority": 97, "ioprio_set": 289, "sched_setattr": 351},
	"arm64": {"sched_setscheduler": 156, "setpriority": 97, "ioprio_set": 314, "sched_setattr": 380},
}

// x32Bit marks a call of the x32 ABI in the x86-64 table (__X32_SYSCALL_BIT); the numbers of the
// class calls are the 64-bit ones with it set.
const x32Bit = 0x40000000

// x32Mask clears the x32 bit where there is one (x86-64); elsewhere it keeps every bit, so that an
// invalid number with bit 30 set is not taken for a class call.
func x32Mask() uint32 {
	if runtime.GOARCH == "amd64" {
		return ^uint32(x32Bit)
	}
	return ^uint32(0)
}

// compatNice is nice(2) in both compat tables (i386, 32-bit arm): setpriority's older form, which
// the native tables lack and musl on those ABIs calls for nice(); the setpriority fault takes it.
const compatNice = 34

// native rewrites req as the native table's call, and says which ABI it came through ("" native):
// a compat call's number is mapped, nice(inc) becomes setpriority(PRIO_PROCESS, 0, now+inc) of
// the caller, and an x32 call loses its bit.
func native(req *notif, name string) string {
	call, _, _ := strings.Cut(name, ":")
	abi := map[string]string{"amd64": "i386 ABI, int $0x80", "arm64": "32-bit arm ABI"}[runtime.GOARCH]
	switch {
	case req.arch != compatArch() || compatArch() == 0:
	case uint32(req.nr) == compatCalls[runtime.GOARCH][call]:
		req.nr = int32(Syscalls[call])
		return abi
	case call == "setpriority" && req.nr == compatNice:
		now, err := unix.Getpriority(unix.PRIO_PROCESS, int(req.pid)) // 20 - nice, as the kernel returns it
		nice := 0
		if err == nil {
			nice = 20 - now
		}
		req.nr, req.args = int32(unix.SYS_SETPRIORITY), [6]uint64{unix.PRIO_PROCESS, 0, uint64(int64(min(19, max(-20, nice+int(int32(req.args[0]))))))}
		return abi + ", nice(2)"
	}
	if req.arch == nativeArch() && req.nr&x32Bit != 0 && runtime.GOARCH == "amd64" {
		req.nr &^= x32Bit
		return "x32 ABI"
	}
	return ""
}
