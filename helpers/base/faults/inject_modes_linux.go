package faults

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/classproof/classproof/helpers/base/actas"
	"github.com/classproof/classproof/helpers/base/proctable"
)

// Modes of a fault (FAULT:MODE; no mode is silent): the call made a success that does nothing; the
// class applied wrong (SCHED_BATCH for a scheduling call, best-effort 7 for an I/O one, nice 10
// for setpriority), by the kit on the caller's behalf; or the call answered at once and applied, as
// asked, LateBy later: the process runs at its old class until then, and what it forks meanwhile
// keeps that class.
const (
	ModeSilent = "silent"
	ModeWrong  = "wrong"
	ModeLate   = "late"
)

// LateBy is how late a late fault applies the class.
const LateBy = 1500 * time.Millisecond

// Modes are the modes of each fault, in the order a matrix lists them.
var Modes = []string{ModeSilent, ModeWrong, ModeLate}

// parseFault splits FAULT[:MODE] into the call's number and the mode.
func parseFault(name string) (nr uintptr, mode string, err error) {
	if name == Probe && nativeArch() != 0 {
		return 0, ModeProbe, nil
	}
	call, mode, _ := strings.Cut(name, ":")
	if mode == "" {
		mode = ModeSilent
	}
	nr, ok := Syscalls[call]
	if !ok || nativeArch() == 0 || (mode != ModeSilent && mode != ModeWrong && mode != ModeLate) {
		return 0, "", faultError(name)
	}
	return nr, mode, nil
}

// sched_attr's fields the kit reads (include/uapi/linux/sched/types.h): size, then policy.
const schedAttrSize = 56

// caller is the thread that made a class call, who it runs as, and what the call names, in the
// kit's own pid namespace: a thread or process (pgrp false), or a process group.
type caller struct {
	tid, uid, gid int
	target        int
	pgrp          bool
}

// callerOf reads who made req's call and what it names. A call the kit cannot answer for is not
// its to fault (ok false; the kernel judges it as usual): a user's processes, or a pid named from
// a nested pid namespace, which means another process in the kit's. Any other target is faulted
// (a launcher may set its child's class from outside), and what the kit applies, it applies as
// the caller, so the kernel allows no more than the caller could do itself.
func callerOf(req *notif) (caller, bool) {
	pgrp := false
	who := int(int32(req.args[0]))
	switch req.nr {
	case int32(unix.SYS_IOPRIO_SET), int32(unix.SYS_SETPRIORITY):
		switch kind := req.args[0]; {
		case req.nr == int32(unix.SYS_IOPRIO_SET) && kind == ioprioWhoProcess, req.nr == int32(unix.SYS_SETPRIORITY) && kind == unix.PRIO_PROCESS:
		case req.nr == int32(unix.SYS_IOPRIO_SET) && kind == ioprioWhoPgrp, req.nr == int32(unix.SYS_SETPRIORITY) && kind == unix.PRIO_PGRP:
			pgrp = true
		default:
			return caller{}, false
		}
		who = int(int32(req.args[1]))
	}
	tid := int(req.pid)
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", tid))
	if err != nil {
		return caller{}, false
	}
	uid, uok := statusField(string(status), "Uid:", 1) // effective: what the kernel checks
	gid, gok := statusField(string(status), "Gid:", 1)
	c := caller{tid: tid, uid: uid, gid: gid, target: who, pgrp: pgrp}
	switch {
	case !uok || !gok:
		return caller{}, false
	case who == 0 && pgrp:
		in, err := proctable.Lookup(tid)
		c.target = in.Pgid
		return c, err == nil
	case who == 0:
		c.target = tid
	case nestedPidNS(string(status)):
		return caller{}, false
	}
	return c, true
}

// nestedPidNS says whether the caller's status shows it in a pid namespace below the kit's: its
// NSpid line lists more pids than the kit's own (a kernel before 4.1 has no NSpid: both 0).
func nestedPidNS(status string) bool {
	self, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return true
	}
	return len(proctable.StatusFields(status, "NSpid:")) > len(proctable.StatusFields(string(self), "NSpid:"))
}

// statusField is the n-th number of a /proc/PID/status line.
func statusField(status, key string, n int) (int, bool) {
	f := proctable.StatusFields(status, key)
	if n >= len(f) {
		return 0, false
	}
	id, err := strconv.Atoi(f[n])
	return id, err == nil
}

const (
	ioprioWhoProcess = 1
	ioprioWhoPgrp    = 2
)

// apply answers one call the way in's mode says, and returns what the kit did for the log.
// What it applies, it applies as the caller (onBehalf: its uid, no capability).
func (in *Injector) apply(req *notif, c caller) string {
	attr, err := readAttr(req, c) // before the answer: the caller may change its memory after
	if err != nil {
		return err.Error()
	}
	if !in.valid(req) {
		return "the caller was gone before the kit read its call; nothing applied"
	}
	switch in.mode {
	case ModeWrong:
		return onBehalf(req, c, attr, true)
	case ModeLate:
		// A thread or process through a pidfd taken while the caller waits: one gone by then is
		// not replaced by whatever reuses its pid. (A process group has no pidfd.)
		pidfd := -1
		if !c.pgrp {
			if pidfd, err = targetPidfd(c.target); err != nil || !in.valid(req) {
				return fmt.Sprintf("late: no pidfd for %d (%v); nothing applied", c.target, err)
			}
		}
		go func() {
			if pidfd >= 0 {
				defer unix.Close(pidfd)
			}
			time.Sleep(LateBy)
			did := "the target had ended; nothing applied"
			if pidfd < 0 || unix.PidfdSendSignal(pidfd, 0, nil, 0) == nil {
				did = onBehalf(req, c, attr, false)
			}
			in.write(fmt.Sprintf("# %s pid %d, %v later: %s\n", in.name, req.pid, LateBy, did))
		}()
		return fmt.Sprintf("answered now, applied in %v", LateBy)
	}
	return "did nothing"
}

// targetPidfd is a pidfd for thread or process tid: of the thread itself (PIDFD_THREAD, Linux
// 6.9), else of tid when it leads its process, else of the process it belongs to.
func targetPidfd(tid int) (int, error) {
	if fd, err := unix.PidfdOpen(tid, unix.PIDFD_THREAD); err == nil {
		return fd, nil
	}
	if fd, err := unix.PidfdOpen(tid, 0); err == nil {
		return fd, nil
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", tid))
	if err != nil {
		return -1, err
	}
	tgid, ok := statusField(string(status), "Tgid:", 0)
	if !ok {
		return -1, fmt.Errorf("/proc/%d/status has no Tgid", tid)
	}
	return unix.PidfdOpen(tgid, 0)
}

// onBehalf makes the call for the caller, wrong or as asked, as the caller: in a process of the
// caller's ids (actas.Child), never on a thread of the suite process, which starts every launcher
// process (a thread holding their uid is theirs to prlimit64 or stop, and with it the whole
// suite process).
func onBehalf(req *notif, c caller, attr []byte, wrong bool) string {
	what, op, args := classCall(req, c, attr, wrong)
	if op == "" {
		return what
	}
	failed, err := actas.Child(c.uid, c.gid, actBound(), op, args...)
	if err == nil && len(failed) > 0 {
		err = errors.New(strings.Join(failed, "; "))
	}
	if err != nil {
		return what + ": " + err.Error()
	}
	return what
}

// classCall is req's call for c's target, wrong or as asked: what it is, and the actas.Child work
// that makes it.
func classCall(req *notif, c caller, attr []byte, wrong bool) (what, op string, args []string) {
	num := func(v ...int) []string {
		out := make([]string, len(v))
		for i, n := range v {
			out[i] = strconv.Itoa(n)
		}
		return out
	}
	switch req.nr {
	case int32(unix.SYS_SCHED_SETSCHEDULER), int32(unix.SYS_SCHED_SETATTR):
		policy := uint32(req.args[1])
		if req.nr == int32(unix.SYS_SCHED_SETATTR) {
			policy = binary.LittleEndian.Uint32(attr[4:8])
		}
		if wrong {
			policy = unix.SCHED_BATCH
		}
		return fmt.Sprintf("policy %d for %d", policy, c.target), actas.SchedPolicy, num(c.target, int(policy))
	case int32(unix.SYS_IOPRIO_SET):
		prio := req.args[2]
		if wrong {
			prio = 2<<13 | 7 // best-effort, level 7
		}
		return fmt.Sprintf("ioprio %#x for %s", prio, c.named()), actas.IOPrio, num(int(req.args[0]), c.target, int(prio))
	case int32(unix.SYS_SETPRIORITY):
		nice := int(int32(req.args[2]))
		if wrong {
			nice = 10
		}
		return fmt.Sprintf("nice %d for %s", nice, c.named()), actas.Nice, num(int(req.args[0]), c.target, nice)
	}
	return "", "", nil
}

func (c caller) named() string {
	if c.pgrp {
		return fmt.Sprintf("process group %d", c.target)
	}
	return strconv.Itoa(c.target)
}

// readAttr reads the struct sched_attr a sched_setattr call points at, from the caller's memory
// (nil for the other calls, whose arguments are all in registers).
// /proc/PID/mem is opened as the caller (actas.Open: ptrace access to one's own process needs no
// CAP_SYS_PTRACE, which a root kit in a container lacks; a caller in a user namespace it made is
// opened in a process of its ids, whose effective uid holds every capability there) and read
// by the kit; the caller must still be waiting after (valid).
func readAttr(req *notif, c caller) ([]byte, error) {
	if req.nr != int32(unix.SYS_SCHED_SETATTR) {
		return nil, nil
	}
	b := make([]byte, schedAttrSize)
	f, err := actas.Open(c.uid, c.gid, actBound(), fmt.Sprintf("/proc/%d/mem", req.pid), unix.O_RDONLY)
	if err == nil {
		defer f.Close()
		_, err = f.ReadAt(b[:8], int64(req.args[1]))
	}
	if err != nil {
		return nil, fmt.Errorf("reading the caller's sched_attr: %w", err)
	}
	return b, nil
}

// Describe says what a fault (FAULT[:MODE]) does, for a log line and a matrix row.
func Describe(name string) string {
	call, mode, _ := strings.Cut(name, ":")
	switch {
	case name == Probe:
		return "every class call counted, none changed, in every launcher process (seccomp, a probe)"
	case mode == ModeWrong:
		return call + " applied wrong (SCHED_BATCH for a scheduling call, best-effort 7 for I/O, nice 10), in every launcher process (seccomp, injected)"
	case mode == ModeLate:
		return fmt.Sprintf("%s applied %v late, in every launcher process (seccomp, injected)", call, LateBy)
	}
	return call + " made a silent success in every launcher process (seccomp, injected)"
}
