package proctable

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrNoArgs is Args of a process that shows none: a kernel thread, or a process in the middle of
// exec. The parent of a Go exec.Cmd sees Start return once the new program is mapped, but
// /proc/PID/cmdline reads empty until the kernel has laid out its arguments (fs/proc/base.c
// get_mm_cmdline: "if (!mm->env_end) return 0"), which a starved child at background class may
// take long to reach. Read as [""], such a process would be no process the kit started.
var ErrNoArgs = errors.New("no arguments (a kernel thread, or a process in the middle of exec)")

// parseCmdline splits a /proc/PID/cmdline read into its arguments.
func parseCmdline(pid int, b []byte) ([]string, error) {
	if len(b) == 0 {
		return nil, fmt.Errorf("pid %d: %w", pid, ErrNoArgs)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00"), nil
}

// Stat is what the kit reads from a Linux /proc/PID/stat line (proc(5)).
type Stat struct {
	State   byte   // field 3: R, S, D, Z, ...
	Ppid    int    // field 4
	Pgrp    int    // field 5
	Session int    // field 6
	Flags   uint64 // field 9: the task's PF_* flags (include/linux/sched.h)
	Threads int    // field 20
	Start   uint64 // field 22: clock ticks since boot
	Policy  int    // field 41: 5 is SCHED_IDLE
	// What ps's pri and ni columns are made of (procps reads this same line): field 18 the
	// priority, 19 the nice value, 40 the real-time priority.
	Priority, Nice, RTPriority int
}

// MaxThreads bounds the threads read of one process: a launcher's process is a claim, and its
// thread count too.
const MaxThreads = 4096

// Dead says the process ended and was not waited for: a zombie with no thread left. A leader
// thread that exited on its own (SYS_exit) shows Z too while its other threads run on (num_threads
// counts them), and that process is alive: it holds memory and may fork.
func (s Stat) Dead() bool { return s.State == 'Z' && s.Threads <= 1 }

// pfExiting is PF_EXITING (include/linux/sched.h): do_exit sets it first (exit_signals), and it
// stays until the task is gone.
const pfExiting = 0x4

// Exiting says the task this line is of (a thread, read from /proc/PID/task/TID/stat) is on its
// way out: exiting (PF_EXITING), a zombie or dead (Z, X). Such a task runs no code of its own
// again, and what the kernel keeps of it is being freed: do_exit frees its I/O context after
// exit_notify (kernel/exit.c, exit_io_context), and its I/O class reads none from then on. What
// is read of it is no class it runs at.
func (s Stat) Exiting() bool { return s.Flags&pfExiting != 0 || s.State == 'Z' || s.State == 'X' }

// ParseStat reads one /proc/PID/stat line. The comm field may hold spaces and ')' (go-ps breaks
// on that), so fields are counted from the last ')'. It is the kit's one stat parser: the oracle
// reads the policy with it, process tracking the parent, state and start time.
func ParseStat(stat []byte) (Stat, error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return Stat{}, fmt.Errorf("/proc stat %q: no ')'", stat)
	}
	f := bytes.Fields(stat[i+1:])
	// f[0] is field 3 (state); field N is f[N-3].
	field := func(n int) []byte { return f[n-3] }
	if len(f) < 41-3+1 {
		return Stat{}, fmt.Errorf("/proc stat: %d fields after comm, need %d", len(f), 41-3+1)
	}
	st := Stat{State: field(3)[0]}
	var err error
	num := func(n int) int {
		v, e := strconv.Atoi(string(field(n)))
		if e != nil && err == nil {
			err = fmt.Errorf("/proc stat field %d %q: %w", n, field(n), e)
		}
		return v
	}
	st.Ppid, st.Pgrp, st.Session, st.Threads, st.Policy = num(4), num(5), num(6), num(20), num(41)
	st.Priority, st.Nice, st.RTPriority = num(18), num(19), num(40)
	if err != nil {
		return Stat{}, err
	}
	// Their own errors: assigning them to err would drop one from a field above.
	for _, u := range []struct {
		n  int
		to *uint64
	}{{9, &st.Flags}, {22, &st.Start}} {
		v, uerr := strconv.ParseUint(string(field(u.n)), 10, 64)
		if uerr != nil {
			return Stat{}, fmt.Errorf("/proc stat field %d %q: %w", u.n, field(u.n), uerr)
		}
		*u.to = v
	}
	return st, nil
}
