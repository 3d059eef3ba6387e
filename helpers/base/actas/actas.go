// Package actas runs a piece of the kit's work with a launcher user's identity, so the kernel,
// not the kit's bookkeeping, judges what that user may read, pass through, run or change. A root
// kit reads a launcher process's /proc/PID/exe and environ (ptrace access,
// PTRACE_MODE_READ_FSCREDS: a root without CAP_SYS_PTRACE, as in a container with Docker's
// defaults, has none across uids), looks a command up on PATH, and makes a folder read-only
// for that user, all as that user: no more power than the launcher has itself.
//
// Two ways, by what the kernel checks. Do lends a thread of the kit the user's fs ids only: what
// the kernel judges by them (a path walked, a file opened, ptrace access "FSCREDS") and nothing
// else. No thread of the kit ever holds the user's real, effective or saved ids: every check a
// process makes on another thread reads those (kernel/sys.c check_prlimit_permission: the target's
// uid, euid, suid, gid, egid, sgid; kernel/signal.c kill_ok_by_cred: its uid and suid;
// kernel/ptrace.c __ptrace_may_access: its uid, euid, suid, gid, egid, sgid, fs ids only on the
// caller's side; kernel/sched/syscalls.c check_same_owner and kernel/sys.c set_one_prio_perm:
// its uid and euid), so a thread with root's ids and the user's fs ids is out of the user's
// reach: its processes cannot lower the kit's limits (prlimit64 sets the whole process's), stop it
// (SIGSTOP stops every thread) or attach to it. Work the kernel judges by the real or effective
// ids (a class call on another process, a kill, a capability in a user namespace the user owns)
// runs in a process of its own, Child's and Open's: this binary started again as the user,
// waited on within a bound and killed past it, so a launcher that stops or slows it costs the
// kit that work, never the kit.
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
func Do(uid, gid int, fn func() error) error {
	if uid == os.Geteuid() && gid == os.Getegid() {
		return fn()
	}
	if os.Geteuid() != 0 {
		return notRoot(uid, gid)
	}
	return do(uid, gid, fn)
}

func notRoot(uid, gid int) error {
	return fmt.Errorf("acting as uid %d gid %d: the kit runs as uid %d, not root", uid, gid, os.Geteuid())
}
