package faults

import (
	"maps"
	"runtime"
	"slices"
	"sync"

	"golang.org/x/sys/unix"
)

// ModeProbe is Probe's mode: each call goes on as made (SECCOMP_USER_NOTIF_FLAG_CONTINUE), counted.
const ModeProbe = Probe

// probeCalls are the calls a probe counts: every one a fault can be injected into, in order.
var probeCalls = sync.OnceValue(func() []string { return slices.Sorted(maps.Keys(Syscalls)) })

// filterFor is the seccomp program that sends calls (names of Syscalls) to the listener, in every
// ABI the kit's architecture has (the native table, x32's bit on x86-64, the compat table and its
// nice(2)), and allows every other call.
func filterFor(calls []string) []unix.SockFilter {
	var natives, compats []uint32
	for _, c := range calls {
		natives = append(natives, uint32(Syscalls[c]))
		compats = append(compats, compatCalls[runtime.GOARCH][c])
		if c == "setpriority" {
			compats = append(compats, compatNice)
		}
	}
	// Laid out as: the arch load and test (0, 1), the nr load and x32 mask (2, 3), a test per
	// native number, a jump to ALLOW, the compat arch test (compat), the nr load, a test per
	// compat number, then ALLOW and NOTIF; each jump counts from the instruction after it.
	compat := 5 + len(natives)
	allow := compat + 2 + len(compats)
	notif := allow + 1
	jump := func(from, to int) uint8 { return uint8(to - from - 1) }
	prog := []unix.SockFilter{
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: offArch},
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, Jt: 0, Jf: jump(1, compat), K: nativeArch()},
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: offNr},
		{Code: unix.BPF_ALU | unix.BPF_AND | unix.BPF_K, K: x32Mask()},
	}
	for _, nr := range natives {
		i := len(prog)
		prog = append(prog, unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, Jt: jump(i, notif), K: nr})
	}
	prog = append(prog, unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JA, K: uint32(allow - len(prog) - 1)})
	i := len(prog)
	prog = append(prog,
		unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, Jt: 0, Jf: jump(i, allow), K: compatArch()},
		unix.SockFilter{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: offNr})
	for _, nr := range compats {
		i := len(prog)
		prog = append(prog, unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, Jt: jump(i, notif), K: nr})
	}
	return append(prog,
		unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW},
		unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_USER_NOTIF})
}

// probe counts req's call when it is one a fault would take (a launcher process's, callerOf), and
// lets it go on as made, whoever made it.
func (in *Injector) probe(req *notif) {
	for _, call := range probeCalls() {
		r := *req
		abi := native(&r, call)
		if uint32(r.nr) != uint32(Syscalls[call]) || (abi == "" && r.arch != nativeArch()) {
			continue
		}
		if _, ours := callerOf(&r); ours {
			in.count(call)
		}
		break
	}
	in.send(notifResp{id: req.id, flags: unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE})
}

// count records one call answered for this Injector's Spawner, and for the process (answered).
func (in *Injector) count(call string) {
	answered.Add(1)
	in.mu.Lock()
	in.calls[call]++
	in.mu.Unlock()
}

// Calls are the class calls the Injector answered (or, a probe, counted) for its Spawner's
// processes, by call; nil for none, or one never installed.
func (in *Injector) Calls() map[string]int64 {
	if in == nil {
		return nil
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if !in.installed {
		return nil
	}
	return maps.Clone(in.calls)
}
