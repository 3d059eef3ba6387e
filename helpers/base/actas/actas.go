// Package actas runs a piece of the kit's work with a launcher user's file-system identity, so
// the kernel, not the kit's bookkeeping, judges what that user may read, pass through, run or
// change. A root kit reads a launcher process's /proc/PID/exe and environ (ptrace access,
// PTRACE_MODE_READ_FSCREDS: a root without CAP_SYS_PTRACE, as in a container with Docker's
// defaults, has none across uids), looks a command up on PATH, and makes a folder read-only
// for that user, all as that user: no more power than the launcher has itself.
//
// It must not import the Ginkgo DSL, Gomega or fixtures/.
package actas

import (
	"fmt"
	"os"
)

// Do runs fn as uid and gid: on Linux on an OS thread of its own whose fs uid and gid are
// theirs, with no supplementary groups and no effective capabilities, ended when fn returns
// (the identity never returns to the Go scheduler's threads). When uid and gid are this
// process's own it runs fn as it is; a kit that is not root cannot become another user, and
// says so. fn makes system calls only, on its own goroutine: a goroutine it starts runs on
// another thread, as root, and a command it execs regains root's capabilities (its real and
// effective uid are still 0).
func Do(uid, gid int, fn func() error) error { return as(uid, gid, fn, do) }

// DoAsProcess runs fn as uid and gid the way the kernel checks a process acting on processes
// (sched_setattr, ioprio_set, setpriority judge the caller's real and effective uid, its
// capabilities and RLIMIT_NICE): on Linux on an OS thread of its own whose real, effective, saved
// and fs ids are theirs, with no supplementary groups and no capabilities, ended when fn returns.
// When uid and gid are this process's own it runs fn as it is.
func DoAsProcess(uid, gid int, fn func() error) error { return as(uid, gid, fn, doAsProcess) }

// as runs fn as it is for this process's own ids, else through become, which only root may.
func as(uid, gid int, fn func() error, become func(uid, gid int, fn func() error) error) error {
	if uid == os.Geteuid() && gid == os.Getegid() {
		return fn()
	}
	if os.Geteuid() != 0 {
		return fmt.Errorf("acting as uid %d gid %d: the kit runs as uid %d, not root", uid, gid, os.Geteuid())
	}
	return become(uid, gid, fn)
}
