package proctable

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Lookup reads one process from /proc: ErrNoProcess when no process has that pid (its /proc
// entry is gone, or the read met ESRCH), another error when the kit cannot tell (see ErrNoProcess).
func Lookup(pid int) (Info, error) {
	return lookupBy(pid, os.ReadFile)
}

// lookupBy is Lookup on what read reads.
func lookupBy(pid int, read func(string) ([]byte, error)) (Info, error) {
	path := fmt.Sprintf("/proc/%d/stat", pid)
	b, err := read(path)
	switch {
	case gone(err):
		return Info{}, fmt.Errorf("pid %d: %w", pid, ErrNoProcess)
	case err != nil:
		return Info{}, fmt.Errorf("pid %d: the kit cannot tell whether it runs: %w", pid, err)
	}
	st, err := ParseStat(b)
	if err != nil {
		return Info{}, fmt.Errorf("pid %d: the kit cannot tell whether it runs: %s: %w", pid, path, err)
	}
	return Info{Pid: pid, Ppid: st.Ppid, Pgid: st.Pgrp, Sid: st.Session, Start: st.Start, Zombie: st.Dead()}, nil
}

// Table lists every process (not thread) in /proc, one stat read each. A process that ended
// while the table was read is left out; one that cannot be read fails the whole table: a table
// missing it would say "none" where the kit cannot tell.
func Table() (map[int]Info, error) {
	d, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	all := make(map[int]Info, len(d))
	for _, e := range d {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		in, err := Lookup(pid)
		switch {
		case Gone(err):
		case err != nil:
			return nil, fmt.Errorf("reading the process table: %w", err)
		default:
			all[pid] = in
		}
	}
	return all, nil
}

// ChildrenTable is this process's children, zombies included, from each of its threads'
// /proc/self/task/TID/children (CONFIG_PROC_CHILDREN): a handful of reads where Table reads every
// process on the machine, which a busy CI machine has hundreds of. Table where the kernel has no
// such file.
func ChildrenTable() (map[int]Info, error) {
	if _, err := os.Stat("/proc/thread-self/children"); errors.Is(err, os.ErrNotExist) {
		return Table()
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, err
	}
	all := map[int]Info{}
	for _, t := range tasks {
		// A child belongs to the thread that forked it (another of ours once that thread ends).
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		switch {
		case gone(err):
			continue // a thread that ended while the list was read
		case err != nil:
			return nil, fmt.Errorf("reading this process's children: %w", err)
		}
		for _, f := range strings.Fields(string(b)) {
			pid, err := strconv.Atoi(f)
			if err != nil {
				continue
			}
			in, err := Lookup(pid)
			switch {
			case Gone(err):
			case err != nil:
				return nil, fmt.Errorf("reading this process's children: %w", err)
			default:
				all[pid] = in
			}
		}
	}
	return all, nil
}

// Args is a process's argument vector (/proc/PID/cmdline), for telling which session a process
// belongs to; an error when the process is gone or hides it.
func Args(pid int) ([]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return nil, err
	}
	return parseCmdline(pid, b)
}

// Exe is the executable a process runs, as the kernel says (/proc/PID/exe), opened as the
// process's owner (openAsOwner; O_PATH: an executable its owner may run but not read is named
// too) and read through the kit's own descriptor of it.
func Exe(pid int) (string, error) {
	f, err := openAsOwner(pid, fmt.Sprintf("/proc/%d/exe", pid), unix.O_PATH)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
}

// stateOf is the process's state letter as /proc shows it (R, S, D, T, Z, ...), spelt out.
func stateOf(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "state unknown"
	}
	st, err := ParseStat(b)
	if err != nil {
		return "state unknown"
	}
	return "state " + string(st.State)
}

// starved says what was read when any thread of pid waits only for a CPU (R) or for the disk
// (D): a Go process's main thread may sleep on a futex while the thread with work to do is the
// starved one, and a process at I/O class idle waits for its page faults and writes while the
// disk is busy. "" when none does.
func starved(pid int) string {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return ""
	}
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, t.Name()))
		if err != nil {
			continue
		}
		if st, err := ParseStat(b); err == nil && (st.State == 'R' || st.State == 'D') {
			return fmt.Sprintf("pid %d thread %s: state %c (/proc/%d/task/%s/stat)", pid, t.Name(), st.State, pid, t.Name())
		}
	}
	return ""
}

// Identity is a process's arguments and environment, NUL-separated, at most MaxIdentity bytes
// of each (/proc/PID/cmdline and /proc/PID/environ; the environment is readable by the same user
// or by ptrace access, so each is opened as the process's owner: openAsOwner).
func Identity(pid int) ([]byte, error) {
	var out []byte
	for _, name := range []string{"cmdline", "environ"} {
		f, err := openAsOwner(pid, fmt.Sprintf("/proc/%d/%s", pid, name), unix.O_RDONLY)
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(io.LimitReader(f, MaxIdentity))
		f.Close()
		if err != nil {
			return nil, err
		}
		out = append(append(out, b...), 0)
	}
	return out, nil
}
