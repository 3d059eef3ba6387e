package sandbox

import (
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"
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

// apply answers one call the way in's mode says, and returns what the kit did for the log.
func (in *injector) apply(req *notif) string {
	target := int(req.args[0]) // who the call names; 0 is the caller itself
	if req.nr == int32(unix.SYS_IOPRIO_SET) || req.nr == int32(unix.SYS_SETPRIORITY) {
		target = int(req.args[1])
	}
	if target == 0 {
		target = int(req.pid)
	}
	switch in.mode {
	case ModeWrong:
		return in.onBehalf(req, target, true)
	case ModeLate:
		attr, err := readAttr(req) // before the answer: the caller may change its memory after
		if err != nil {
			return "late: " + err.Error()
		}
		go func() {
			time.Sleep(LateBy)
			in.write(fmt.Sprintf("# %s pid %d, %v later: %s\n", in.name, req.pid, LateBy, in.onBehalfAttr(req, target, attr, false)))
		}()
		return fmt.Sprintf("answered now, applied in %v", LateBy)
	}
	return "did nothing"
}

// onBehalf makes the call for target, wrong or as asked.
func (in *injector) onBehalf(req *notif, target int, wrong bool) string {
	attr, err := readAttr(req)
	if err != nil {
		return err.Error()
	}
	return in.onBehalfAttr(req, target, attr, wrong)
}

func (in *injector) onBehalfAttr(req *notif, target int, attr []byte, wrong bool) string {
	var err error
	what := ""
	switch req.nr {
	case int32(unix.SYS_SCHED_SETSCHEDULER), int32(unix.SYS_SCHED_SETATTR):
		policy := uint32(req.args[1])
		if req.nr == int32(unix.SYS_SCHED_SETATTR) {
			policy = binary.LittleEndian.Uint32(attr[4:8])
		}
		if wrong {
			policy = unix.SCHED_BATCH
		}
		what = fmt.Sprintf("policy %d for %d", policy, target)
		err = unix.SchedSetAttr(target, &unix.SchedAttr{Policy: policy}, 0)
	case int32(unix.SYS_IOPRIO_SET):
		prio := req.args[2]
		if wrong {
			prio = 2<<13 | 7 // best-effort, level 7
		}
		what = fmt.Sprintf("ioprio %#x for %d", prio, target)
		_, _, e := unix.Syscall(unix.SYS_IOPRIO_SET, uintptr(req.args[0]), uintptr(target), uintptr(prio))
		if e != 0 {
			err = e
		}
	case int32(unix.SYS_SETPRIORITY):
		nice := int(int32(req.args[2]))
		if wrong {
			nice = 10
		}
		what = fmt.Sprintf("nice %d for %d", nice, target)
		err = unix.Setpriority(int(req.args[0]), target, nice)
	}
	if err != nil {
		return what + ": " + err.Error()
	}
	return what
}

// readAttr reads the struct sched_attr a sched_setattr call points at, from the caller's memory
// (nil for the other calls, whose arguments are all in registers).
func readAttr(req *notif) ([]byte, error) {
	if req.nr != int32(unix.SYS_SCHED_SETATTR) {
		return nil, nil
	}
	f, err := os.Open(fmt.Sprintf("/proc/%d/mem", req.pid))
	if err != nil {
		return nil, fmt.Errorf("reading the caller's sched_attr: %w", err)
	}
	defer f.Close()
	b := make([]byte, schedAttrSize)
	if _, err := f.ReadAt(b[:8], int64(req.args[1])); err != nil {
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
