// Package proctable reads the process table, and only reads it: a process's pid, parent, group,
// start time and state in one look (Lookup, Table), its arguments and executable, its
// descendants, whether it is alive, starved or dying, and whose a Supervisor value is. The oracle
// judges from it; helpers/base/proc tracks and kills with it; helpers/base/cgroup contains.
package proctable

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
)

// ErrNoProcess is Lookup's and Alive's "no process has that pid", and only what the kernel says
// so with (Linux: no /proc entry, ESRCH; macOS: an empty answer). Any other error of theirs says
// the kit could not read the process (EMFILE, a permission, a line it could not parse): the kit
// cannot tell then, and never reads that as "gone": a watch that took an unreadable process for an
// ended one would stop watching it for good, and a harness the kit cannot read is no harness that
// ended. It is fs.ErrNotExist too.
var ErrNoProcess = fmt.Errorf("no such process (%w)", fs.ErrNotExist)

// Gone says whether err is Lookup's or Alive's ErrNoProcess.
func Gone(err error) bool { return errors.Is(err, ErrNoProcess) }

// Info is one process as the kernel lists it, read in one look.
type Info struct {
	Pid, Ppid, Pgid int
	Sid             int // the session (macOS: getsid, read with the table)
	// Start is when the process started (Linux: clock ticks since boot; macOS: microseconds since
	// the epoch). Pids and thread ids share one space and wrap (32768 on a default Linux), so a
	// pid names the same process only while its start time is the same.
	Start uint64
	// Zombie says the process ended and waits to be reaped; on macOS also one on its way out
	// (P_WEXIT, kinfo.exiting), past the point where it runs any code of its own.
	Zombie bool
}

// kinfo is the part of macOS's struct kinfo_proc (sys/sysctl.h, struct extern_proc and struct
// eproc) the kit reads: kept apart from the syscall so that its meaning is tested on any OS.
type kinfo struct {
	Pid, Ppid, Pgid int32 // kp_proc.p_pid, kp_eproc.e_ppid, kp_eproc.e_pgid
	Stat            int8  // kp_proc.p_stat
	Flag            int32 // kp_proc.p_flag
	StartSec        int64 // kp_proc.p_starttime
	StartUsec       int32
}

// sZomb is p_stat's value for a process that exited and waits to be reaped (XNU bsd/sys/proc.h:
// SIDL 1, SRUN 2, SSLEEP 3, SSTOP 4, SZOMB 5). p_stat tells nothing else the kit can use: see
// stateOf in stat_darwin.go.
const sZomb = 5

func (k kinfo) info() Info {
	return Info{Pid: int(k.Pid), Ppid: int(k.Ppid), Pgid: int(k.Pgid), Zombie: k.Stat == sZomb || k.exiting(),
		Start: uint64(k.StartSec)*1_000_000 + uint64(k.StartUsec)}
}

// parseProcArgs reads macOS's KERN_PROCARGS2 buffer: argc (int32, little-endian), the executable
// path, NUL padding, then argc NUL-terminated arguments (XNU bsd/kern/kern_sysctl.c
// sysctl_procargsx).
func parseProcArgs(b []byte) ([]string, error) {
	if len(b) < 4 {
		return nil, errShortArgs
	}
	argc := int(int32(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24))
	rest := b[4:]
	i := 0
	for i < len(rest) && rest[i] != 0 { // the executable path
		i++
	}
	for i < len(rest) && rest[i] == 0 {
		i++
	}
	var args []string
	for len(args) < argc && i < len(rest) {
		j := i
		for j < len(rest) && rest[j] != 0 {
			j++
		}
		args = append(args, string(rest[i:j]))
		i = j + 1
	}
	return args, nil
}

// parsePidPath reads proc_pidpath's buffer (macOS's Exe): the executable's absolute path, up to
// the first NUL.
func parsePidPath(b []byte) (string, error) {
	n := 0
	for n < len(b) && b[n] != 0 {
		n++
	}
	if n == 0 || b[0] != '/' {
		return "", errorString(fmt.Sprintf("proc_pidpath: %q is no absolute path", b[:n]))
	}
	return string(b[:n]), nil
}

var errShortArgs = errorString("process arguments: buffer too short")

type errorString string

func (e errorString) Error() string { return string(e) }

// tableTries bounds the reads of a process table that keeps growing while it is read.
const tableTries = 8

// readKinfos reads macOS's whole process table with read (sysctl kern.proc.all) and decodes it.
// XNU sizes the answer with a few entries of slack and returns ENOMEM when the table outgrew them
// between the size query and the copy (bsd/kern/kern_sysctl.c, sysctl_prochandle); like x/sys's
// SysctlKinfoProcSlice, the read is tried again. A read that still fails is an error, never an
// empty table: "no descendants" read from nothing would pass "nothing started" vacuously.
func readKinfos(read func() ([]byte, error)) (map[int]Info, error) {
	var err error
	for try := 0; try < tableTries; try++ {
		var b []byte
		if b, err = read(); errors.Is(err, syscall.ENOMEM) {
			continue
		}
		if err != nil {
			break
		}
		ks, err := decodeKinfos(b)
		if err != nil {
			return nil, err
		}
		all := make(map[int]Info, len(ks))
		for _, k := range ks {
			in := k.info()
			all[in.Pid] = in
		}
		return all, nil
	}
	return nil, fmt.Errorf("reading the process table (sysctl kern.proc.all): %w", err)
}

// MaxIdentity bounds what the kit reads of another process's arguments and environment.
const MaxIdentity = 1 << 20
