package actas

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Open opens path with flags as uid and gid, and hands the kit the descriptor: first on a thread
// of the kit's with their fs ids (Do); where the kernel asks more than those (a permission
// error: for a process in a user namespace its owner made, commoncap's cap_ptrace_access_check
// wants the owner's effective uid, which holds every capability there), in a process of its own
// (Child's) that opens it and sends the descriptor back before it ends, within bound. Only a
// regular file is opened, and without blocking, unless flags has O_PATH: a device node or a FIFO
// a launcher names is never opened. What the descriptor reads, the kit reads with its own rights:
// the kernel checks ptrace access to /proc/PID/mem, environ and exe when they are opened.
func Open(uid, gid int, bound time.Duration, path string, flags int) (*os.File, error) {
	var f *os.File
	err := Do(uid, gid, func() (err error) { f, err = openRegular(path, flags); return err })
	if !errors.Is(err, os.ErrPermission) || (uid == os.Geteuid() && gid == os.Getegid()) || os.Geteuid() != 0 {
		return f, err
	}
	if f, cerr := openInChild(uid, gid, bound, path, flags); cerr == nil || !errors.Is(cerr, os.ErrPermission) {
		return f, cerr
	}
	return nil, err
}

// ErrNotRegular is Open's refusal of what is no regular file (a folder, a device node, a FIFO):
// for a caller that asks whether a name is a file at all, an answer, not a failure to read one.
var ErrNotRegular = errors.New("not a regular file")

// openRegular opens path with flags, a regular file only unless flags has O_PATH.
func openRegular(path string, flags int) (*os.File, error) {
	regular := flags&unix.O_PATH == 0
	if regular {
		var st unix.Stat_t
		if err := unix.Stat(path, &st); err != nil {
			return nil, &os.PathError{Op: "stat", Path: path, Err: err}
		}
		if st.Mode&unix.S_IFMT != unix.S_IFREG {
			return nil, fmt.Errorf("%s: %w (mode %#o)", path, ErrNotRegular, st.Mode)
		}
		flags |= unix.O_NONBLOCK
	}
	fd, err := unix.Open(path, flags|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	if regular {
		// Swapped between the stat and the open: the open did not block (O_NONBLOCK), and
		// what it opened is not read.
		if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
			f.Close()
			return nil, fmt.Errorf("%s: %w once opened", path, ErrNotRegular)
		}
	}
	return f, nil
}

// openInChild is Open's process of its own: its fd 3 is one end of a socket pair, on which it
// sends the descriptor (SCM_RIGHTS) and ends; the kit takes it from the other end once the
// process has ended, so nothing waits on a process the user may stop but the bounded wait.
func openInChild(uid, gid int, bound time.Duration, path string, flags int) (*os.File, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("opening %s as uid %d: socketpair: %w", path, uid, err)
	}
	ours, theirs := fds[0], os.NewFile(uintptr(fds[1]), "actas-open")
	defer unix.Close(ours)
	out, err := runChild(uid, gid, bound, theirs, openOp, path, strconv.Itoa(flags))
	theirs.Close()
	if err != nil {
		return nil, err
	}
	if no, what, ok := strings.Cut(strings.TrimSpace(out), " "); ok {
		if n, err := strconv.Atoi(no); err == nil && n != 0 {
			return nil, &os.PathError{Op: "open as uid " + strconv.Itoa(uid) + " in a process of its own", Path: path, Err: syscall.Errno(n)}
		}
		return nil, fmt.Errorf("opening %s as uid %d in a process of its own: %s", path, uid, what)
	}
	buf, oob := make([]byte, 1), make([]byte, unix.CmsgSpace(4))
	_, oobn, rflags, _, err := unix.Recvmsg(ours, buf, oob, unix.MSG_DONTWAIT|unix.MSG_CMSG_CLOEXEC)
	if err != nil || rflags&unix.MSG_CTRUNC != 0 {
		return nil, fmt.Errorf("opening %s as uid %d in a process of its own: no descriptor came back (%v)", path, uid, err)
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return nil, fmt.Errorf("opening %s as uid %d in a process of its own: no descriptor came back (%v)", path, uid, err)
	}
	got, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(got) != 1 {
		return nil, fmt.Errorf("opening %s as uid %d in a process of its own: %d descriptors came back (%v)", path, uid, len(got), err)
	}
	return os.NewFile(uintptr(got[0]), path), nil
}

// sendOpened is the open work in Child's process: PATH FLAGS, the descriptor sent on fd 3; a
// failure is printed as "ERRNO text" (0 when it has no errno).
func sendOpened(args []string) int {
	if len(args) != 2 {
		fmt.Println("0 expected PATH FLAGS")
		return 0
	}
	flags, err := strconv.Atoi(args[1])
	if err != nil {
		fmt.Println("0 flags", args[1], "not a number")
		return 0
	}
	f, err := openRegular(args[0], flags)
	if err == nil {
		err = unix.Sendmsg(3, []byte{0}, unix.UnixRights(int(f.Fd())), nil, 0)
	}
	if err != nil {
		var no syscall.Errno
		errors.As(err, &no)
		fmt.Println(int(no), err)
	}
	return 0
}
