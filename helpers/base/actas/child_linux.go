package actas

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// childMarker is argv[1] of this binary started again by Child: no test binary, CLI or launcher
// takes it.
const childMarker = "classproof-actas-child"

// What Child may do, as the user, in a process of its own.
const (
	KillAll     = "kill-all"     // kill(2) with pid -1: every process the user may signal
	RemoveAll   = "remove-all"   // os.RemoveAll of each argument, the user's own folders made u+rwx first
	RemoveIPC   = "remove-ipc"   // IPC_RMID of each "shm:ID", "msg:ID" or "sem:ID"
	SchedPolicy = "sched-policy" // TID POLICY: sched_setattr(TID, {policy POLICY}, 0)
	IOPrio      = "ioprio"       // WHICH WHO PRIO: ioprio_set(WHICH, WHO, PRIO)
	Nice        = "setpriority"  // WHICH WHO NICE: setpriority(WHICH, WHO, NICE)
	openOp      = "open"         // PATH FLAGS: Open's, the descriptor sent back on fd 3
)

func init() {
	if len(os.Args) < 5 || os.Args[1] != childMarker {
		return
	}
	uid, uerr := strconv.Atoi(os.Args[2])
	gid, gerr := strconv.Atoi(os.Args[3])
	if err := errors.Join(uerr, gerr); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	// Started as root and changed here, after the exec: a setuid before it fails the exec of a
	// user at its RLIMIT_NPROC (kernel/cred.c, set_user; fs/exec.c), which a fork storm is, and
	// a kill of that storm must not. syscall's calls change every thread of this process. A kit
	// that is not root starts it as itself, with its own groups.
	var err error
	if os.Geteuid() == 0 {
		err = syscall.Setgroups(nil)
	}
	if err = errors.Join(err, syscall.Setresgid(gid, gid, gid), syscall.Setresuid(uid, uid, uid)); err != nil || os.Getuid() != uid || os.Geteuid() != uid {
		fmt.Fprintf(os.Stderr, "becoming uid %d gid %d: %v\n", uid, gid, err)
		os.Exit(2)
	}
	// The id change left the process dumpable where fs.suid_dumpable is 1: the user could then
	// ptrace it and make it do or say what it likes.
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "PR_SET_DUMPABLE 0: %v\n", err)
		os.Exit(2)
	}
	os.Exit(child(os.Args[4], os.Args[5:]))
}

// Child does op with args as uid and gid in a process of its own: this binary started again
// through /proc/self/exe, which then takes the user's real, effective and saved ids, no groups
// and so no capability, before it does anything. Work on every process or IPC object a
// user owns is done there, never on a thread of the kit's: tgkill(2) and prlimit64(2) are judged
// by the target thread's ids, so while a thread of the kit held the user's real uid, that user's
// processes could stop the kit or lower its limits. The process is the user's to stop or slow:
// it is killed once bound has passed, and the work is then an error. It returns a line per
// argument that failed, in the OS's words. A kit that is not root does it as itself only.
func Child(uid, gid int, bound time.Duration, op string, args ...string) ([]string, error) {
	out, err := runChild(uid, gid, bound, nil, op, args...)
	var failed []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line != "" {
			failed = append(failed, line)
		}
	}
	return failed, err
}

// reapGrace is how long runChild waits, once it killed a process past its bound, for the kernel
// to end it (a process in uninterruptible sleep dies only when that ends); past it, the process is
// left to be reaped when it does, and the work is an error all the same.
const reapGrace = time.Second

// runChild starts the process Child describes with extra as its fd 3, and returns its output.
func runChild(uid, gid int, bound time.Duration, extra *os.File, op string, args ...string) (string, error) {
	if os.Geteuid() != 0 && (uid != os.Geteuid() || gid != os.Getegid()) {
		return "", notRoot(uid, gid)
	}
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/proc/self/exe", append([]string{childMarker, strconv.Itoa(uid), strconv.Itoa(gid), op}, args...)...)
	cmd.Args[0] = "classproof-actas"
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.WaitDelay = reapGrace
	if extra != nil {
		cmd.ExtraFiles = []*os.File{extra}
	}
	what := fmt.Sprintf("acting as uid %d gid %d in a process of its own (%s)", uid, gid, op)
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(bound + 2*reapGrace):
		return "", fmt.Errorf("%s: pid %d still there %v after it was killed at its bound of %v", what, cmd.Process.Pid, 2*reapGrace, bound)
	}
	if ctx.Err() != nil {
		return out.String(), fmt.Errorf("%s: pid %d killed at its bound of %v (a process of the user's may stop or slow it): %v %s", what, cmd.Process.Pid, bound, err, strings.TrimSpace(errOut.String()))
	}
	if err != nil {
		return out.String(), fmt.Errorf("%s: %w %s", what, err, strings.TrimSpace(errOut.String()))
	}
	return out.String(), nil
}

// child is the process Child starts: it prints a line per argument that failed.
func child(op string, args []string) int {
	switch op {
	case KillAll:
		// Every process this user may signal but this one (kill(2): pid -1).
		if err := syscall.Kill(-1, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
			fmt.Println("kill -1:", err)
		}
	case RemoveAll:
		for _, p := range args {
			if err := removeAll(p); err != nil {
				fmt.Printf("%q: %v\n", p, err)
			}
		}
	case RemoveIPC:
		for _, a := range args {
			if err := removeIPC(a); err != nil {
				fmt.Printf("%s: %v\n", a, err)
			}
		}
	case SchedPolicy, IOPrio, Nice:
		if err := classCall(op, args); err != nil {
			fmt.Printf("%s %s: %v\n", op, strings.Join(args, " "), err)
		}
	case openOp:
		return sendOpened(args)
	default:
		fmt.Fprintf(os.Stderr, "no such work %q\n", op)
		return 2
	}
	return 0
}
