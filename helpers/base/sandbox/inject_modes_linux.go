package sandbox

import (
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/classproof/classproof/helpers/base/actas"
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
	call, mode, _ := strings.Cut(name, ":")
	if mode == "" {
		mode = ModeSilent
	}
	nr, ok := Faults[call]
	if !ok || nativeArch() == 0 || (mode != ModeSilent && mode != ModeWrong && mode != ModeLate) {
		return 0, "", faultError(name)
	}
	return nr, mode, nil
}

// sched_attr's fields the kit reads (include/uapi/linux/sched/types.h): size, then policy.
const schedAttrSize = 56

// caller is the thread that made a class call on itself, and who it runs as.
type caller struct {
	tid, uid, gid int
}

// callerOf says whether req's call names the caller itself, the only target the kit answers for:
// a scheduling call for pid 0 or its own thread or process, ioprio_set(IOPRIO_WHO_PROCESS, ...) or
// setpriority(PRIO_PROCESS, ...) likewise. Another pid, a process group or a user is not: the
// kit would otherwise act for the caller on processes it may not touch (a root kit's power lent to
// uid 65534), and "who 0" means the caller only for a process target.
func callerOf(req *notif) (caller, bool) {
	who := int(int32(req.args[0]))
	switch req.nr {
	case int32(unix.SYS_IOPRIO_SET):
		if req.args[0] != ioprioWhoProcess {
			return caller{}, false
		}
		who = int(int32(req.args[1]))
	case int32(unix.SYS_SETPRIORITY):
		if req.args[0] != unix.PRIO_PROCESS {
			return caller{}, false
		}
		who = int(int32(req.args[1]))
	}
	tid := int(req.pid)
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", tid))
	if err != nil {
		return caller{}, false
	}
	tgid, _ := statusField(string(status), "Tgid:", 0)
	uid, uok := statusField(string(status), "Uid:", 1) // effective: what the kernel checks
	gid, gok := statusField(string(status), "Gid:", 1)
	if !uok || !gok || (who != 0 && who != tid && who != tgid) {
		return caller{}, false
	}
	if who != 0 {
		tid = who
	}
	return caller{tid: tid, uid: uid, gid: gid}, true
}

// statusField is the n-th number of a /proc/PID/status line.
func statusField(status, key string, n int) (int, bool) {
	for _, line := range strings.Split(status, "\n") {
		if v, ok := strings.CutPrefix(line, key); ok {
			f := strings.Fields(v)
			if n >= len(f) {
				return 0, false
			}
			id, err := strconv.Atoi(f[n])
			return id, err == nil
		}
	}
	return 0, false
}

const ioprioWhoProcess = 1

// apply answers one call on the caller itself the way in's mode says, and returns what the kit
// did for the log. What it applies, it applies as the caller (actas.DoAsProcess: its uid, no
// capability), so the kernel allows only what the caller could have done itself.
func (in *injector) apply(req *notif, c caller) string {
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
		// Through a pidfd taken while the caller waits: a caller gone by then is not replaced by
		// whatever reuses its pid.
		pidfd, err := unix.PidfdOpen(c.tid, unix.PIDFD_THREAD)
		if err != nil {
			pidfd, err = unix.PidfdOpen(c.tid, 0)
		}
		if err != nil || !in.valid(req) {
			return fmt.Sprintf("late: no pidfd for %d (%v); nothing applied", c.tid, err)
		}
		go func() {
			defer unix.Close(pidfd)
			time.Sleep(LateBy)
			did := "the caller had ended; nothing applied"
			if unix.PidfdSendSignal(pidfd, 0, nil, 0) == nil {
				did = onBehalf(req, c, attr, false)
			}
			in.write(fmt.Sprintf("# %s pid %d, %v later: %s\n", in.name, req.pid, LateBy, did))
		}()
		return fmt.Sprintf("answered now, applied in %v", LateBy)
	}
	return "did nothing"
}

// onBehalf makes the call for the caller, wrong or as asked, as the caller.
func onBehalf(req *notif, c caller, attr []byte, wrong bool) string {
	var what string
	err := actas.DoAsProcess(c.uid, c.gid, func() error {
		var err error
		what, err = classCall(req, c.tid, attr, wrong)
		return err
	})
	if err != nil {
		return what + ": " + err.Error()
	}
	return what
}

// classCall makes req's call for target, wrong or as asked.
func classCall(req *notif, target int, attr []byte, wrong bool) (string, error) {
	switch req.nr {
	case int32(unix.SYS_SCHED_SETSCHEDULER), int32(unix.SYS_SCHED_SETATTR):
		policy := uint32(req.args[1])
		if req.nr == int32(unix.SYS_SCHED_SETATTR) {
			policy = binary.LittleEndian.Uint32(attr[4:8])
		}
		if wrong {
			policy = unix.SCHED_BATCH
		}
		return fmt.Sprintf("policy %d for %d", policy, target), unix.SchedSetAttr(target, &unix.SchedAttr{Policy: policy}, 0)
	case int32(unix.SYS_IOPRIO_SET):
		prio := req.args[2]
		if wrong {
			prio = 2<<13 | 7 // best-effort, level 7
		}
		what := fmt.Sprintf("ioprio %#x for %d", prio, target)
		if _, _, e := unix.Syscall(unix.SYS_IOPRIO_SET, ioprioWhoProcess, uintptr(target), uintptr(prio)); e != 0 {
			return what, e
		}
		return what, nil
	case int32(unix.SYS_SETPRIORITY):
		nice := int(int32(req.args[2]))
		if wrong {
			nice = 10
		}
		return fmt.Sprintf("nice %d for %d", nice, target), unix.Setpriority(unix.PRIO_PROCESS, target, nice)
	}
	return "", nil
}

// readAttr reads the struct sched_attr a sched_setattr call points at, from the caller's memory
// (nil for the other calls, whose arguments are all in registers).
// It reads as the caller (ptrace access to one's own process needs no CAP_SYS_PTRACE, which a
// root kit in a container lacks); the caller must still be waiting after (valid).
func readAttr(req *notif, c caller) ([]byte, error) {
	if req.nr != int32(unix.SYS_SCHED_SETATTR) {
		return nil, nil
	}
	b := make([]byte, schedAttrSize)
	err := actas.Do(c.uid, c.gid, func() error {
		f, err := os.Open(fmt.Sprintf("/proc/%d/mem", req.pid))
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = f.ReadAt(b[:8], int64(req.args[1]))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("reading the caller's sched_attr: %w", err)
	}
	return b, nil
}

// DescribeFault says what a fault (FAULT[:MODE]) does, for a log line and a matrix row.
func DescribeFault(name string) string {
	call, mode, _ := strings.Cut(name, ":")
	switch mode {
	case ModeWrong:
		return call + " applied wrong (SCHED_BATCH for a scheduling call, best-effort 7 for I/O, nice 10), in every launcher process (seccomp, injected)"
	case ModeLate:
		return fmt.Sprintf("%s applied %v late, in every launcher process (seccomp, injected)", call, LateBy)
	}
	return call + " made a silent success in every launcher process (seccomp, injected)"
}
