package proc

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// The ledger channel: a record of each harness that no argument of its own can take away. The
// pid ledger is the harness's word at the path its --ledger gives; a launcher that starts the
// handed harness without it and kills it leaves no line there. Where a root kit runs its launcher
// as a uid of the run's own, the runner makes, before any launcher process starts, a FIFO at
// ChannelPath(uid): root's, group the run's gid, mode 0620, in a folder of root's. The harness
// finds it from what the kernel says of it alone (getuid(), its user namespace) and writes each
// line there too (RecordInChannel); the launcher's
// uid may write it but can neither read nor drain nor remove it. The runner's copier
// (OpenChannel) copies each line, bounded, into a file of root's that the suites read
// (ChannelClaims), once a marker of their own came through behind what was written before.

// ChannelDir is the root-owned folder of the FIFOs, one per run uid (ChannelPath). Not below
// /run/classproof, which the sandbox keeps root's alone (0700): a launcher's uid passes this one.
const ChannelDir = "/run/classproof-ledger"

// Roles of the lines only the kit writes into the copy (a launcher's line of either is a claim
// like any other, and fails nothing but the sync it forges, which has a nonce it cannot know).
const (
	SyncRole     = "sync (written by a suite through the channel)"
	OverflowRole = "overflow (written by the copier: lines were lost)"
)

// pipeBuf is PIPE_BUF on Linux, where alone a run has a channel: a write of at most this many
// bytes into a pipe is atomic (pipe(7)), so no other writer's bytes land inside a line.
const pipeBuf = 4096

// RecordInChannel writes the line Record writes into the ledger channel of this process's uid,
// when one exists: the harness calls it before it starts anything, and for each tool. No channel
// (a kit that is not root, macOS, a launcher uid of the user's choice) is no error; one that
// exists and takes no line is: the harness then exits before starting its tool, so the session
// fails, never a silent skip. A channel folder that is not root's as this process sees it means
// the process runs in a user namespace of its own (unshare -U: root is then unmapped, and
// getuid() no longer names the run's uid): an error too.
func RecordInChannel(role string, pid int, report string, wait time.Duration) error {
	e := identify(Entry{Role: role, Pid: pid})
	e.Report = ReportKey(report)
	b, _ := json.Marshal(e)
	path, err := ChannelPath(os.Getuid())
	if err != nil || path == "" {
		return err
	}
	err = writeLine(path, b, wait)
	if errors.Is(err, unix.ENXIO) {
		// No reader: the FIFO of a run killed before it removed it (kill -9). A live run's has
		// one from its start to its end (OpenChannel holds it open both ways), and no launcher can
		// make a FIFO in root's folder: this uid has no channel now.
		return nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	var st unix.Stat_t
	switch err := unix.Stat(ChannelDir, &st); {
	case errors.Is(err, unix.ENOENT):
		return nil
	case err != nil:
		return fmt.Errorf("the ledger channel folder %s: %w", ChannelDir, err)
	case st.Uid != 0:
		return fmt.Errorf("the ledger channel folder %s is owned by uid %d as this process sees it, not root: it runs in a user namespace of its own, where getuid() (%d) does not name the run's uid", ChannelDir, st.Uid, os.Getuid())
	}
	return nil
}

// writeLine writes line, framed by newlines, into the FIFO at path in one write(2): the leading
// newline ends whatever unterminated bytes another writer left, so the line is a line of its
// own. A full pipe is waited on, at most wait. The FIFO must be root's: one made by anyone else
// (a launcher's, in a folder it could write) is refused.
func writeLine(path string, line []byte, wait time.Duration) error {
	framed := append(append([]byte{'\n'}, line...), '\n')
	if len(framed) > pipeBuf {
		return fmt.Errorf("a ledger line of %d bytes is over the %d a pipe writes at once", len(framed), pipeBuf)
	}
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ENXIO) {
			return fmt.Errorf("the ledger channel %s has no reader (its run has ended?): %w", path, err)
		}
		return &os.PathError{Op: "open the ledger channel", Path: path, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return &os.PathError{Op: "fstat the ledger channel", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFIFO || st.Uid != 0 {
		return fmt.Errorf("the ledger channel %s is no FIFO of root's (mode %#o, uid %d)", path, st.Mode, st.Uid)
	}
	deadline := time.Now().Add(wait)
	for {
		n, err := unix.Write(fd, framed)
		switch {
		case err == nil && n == len(framed):
			return nil
		case err == nil:
			return fmt.Errorf("the ledger channel %s took %d of %d bytes", path, n, len(framed))
		case !errors.Is(err, unix.EAGAIN):
			return &os.PathError{Op: "write the ledger channel", Path: path, Err: err}
		}
		left := time.Until(deadline)
		if left <= 0 {
			return fmt.Errorf("the ledger channel %s stayed full for %v: %w", path, wait, err)
		}
		// Bounded: POLLOUT once there is room, or the deadline.
		_, _ = unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}, int(left/time.Millisecond)+1)
	}
}
