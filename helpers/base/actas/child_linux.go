package actas

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// childMarker is argv[1] of this binary started again by Child: no test binary, CLI or launcher
// takes it.
const childMarker = "classproof-actas-child"

// What Child may do, as the user, in a process of its own.
const (
	KillAll   = "kill-all"   // kill(2) with pid -1: every process the user may signal
	RemoveAll = "remove-all" // os.RemoveAll of each argument
	RemoveIPC = "remove-ipc" // IPC_RMID of each "shm:ID", "msg:ID" or "sem:ID"
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
	// a kill of that storm must not. syscall's calls change every thread of this process.
	if err := errors.Join(syscall.Setgroups(nil), syscall.Setresgid(gid, gid, gid), syscall.Setresuid(uid, uid, uid)); err != nil || os.Getuid() != uid || os.Geteuid() != uid {
		fmt.Fprintf(os.Stderr, "becoming uid %d gid %d: %v\n", uid, gid, err)
		os.Exit(2)
	}
	os.Exit(child(os.Args[4], os.Args[5:]))
}

// Child does op with args as uid and gid in a process of its own: this binary started again
// through /proc/self/exe, which then takes the user's real, effective and saved ids, no groups
// and so no capability, before it does anything. Work on every process or IPC object a
// user owns is done there, never on a thread of the kit's: tgkill(2) is judged by the target
// thread's ids, so while a thread of the kit held the user's real uid, that user's processes
// could kill the kit (on a kernel whose Landlock does not scope signals, before ABI 6). It
// returns a line per argument that failed, in the OS's words.
func Child(uid, gid int, op string, args ...string) ([]string, error) {
	if os.Geteuid() != 0 {
		return nil, fmt.Errorf("acting as uid %d gid %d: the kit runs as uid %d, not root", uid, gid, os.Geteuid())
	}
	cmd := exec.Command("/proc/self/exe", append([]string{childMarker, strconv.Itoa(uid), strconv.Itoa(gid), op}, args...)...)
	cmd.Args[0] = "classproof-actas"
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var failed []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if line != "" {
			failed = append(failed, line)
		}
	}
	if err != nil {
		return failed, fmt.Errorf("acting as uid %d gid %d in a process of its own (%s): %w %s", uid, gid, op, err, strings.TrimSpace(errOut.String()))
	}
	return failed, nil
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
			if err := os.RemoveAll(p); err != nil {
				fmt.Printf("%q: %v\n", p, err)
			}
		}
	case RemoveIPC:
		for _, a := range args {
			if err := removeIPC(a); err != nil {
				fmt.Printf("%s: %v\n", a, err)
			}
		}
	default:
		fmt.Fprintf(os.Stderr, "no such work %q\n", op)
		return 2
	}
	return 0
}

// removeIPC removes one System V IPC object, "shm:ID", "msg:ID" or "sem:ID".
func removeIPC(a string) error {
	kind, n, _ := strings.Cut(a, ":")
	id, err := strconv.Atoi(n)
	if err != nil {
		return fmt.Errorf("not an id")
	}
	var e syscall.Errno
	switch kind {
	case "shm":
		_, err := unix.SysvShmCtl(id, unix.IPC_RMID, nil)
		return err
	case "msg": // msgctl(id, IPC_RMID, NULL)
		_, _, e = unix.Syscall(unix.SYS_MSGCTL, uintptr(id), unix.IPC_RMID, 0)
	case "sem": // semctl(id, 0, IPC_RMID)
		_, _, e = unix.Syscall6(unix.SYS_SEMCTL, uintptr(id), 0, unix.IPC_RMID, 0, 0, 0)
	default:
		return fmt.Errorf("no such kind %q", kind)
	}
	if e != 0 {
		return e
	}
	return nil
}
