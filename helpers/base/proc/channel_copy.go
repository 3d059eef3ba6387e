package proc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Bounds on what the copier keeps: a harness's line is one atomic pipe write, so a longer one is
// no harness's and is dropped; a run writes a few hundred lines, and a launcher that floods the
// channel past these makes the copier stop with an overflow line, which fails every Account that
// reads it (lines may be lost), never a silent cut.
const (
	maxChannelLine  = pipeBuf
	maxChannelLines = 1 << 16
	maxChannelBytes = maxLedger / 2
)

// Channel is a run's ledger channel, held open by the runner for the whole run.
type Channel struct {
	FIFO, Copy string
	r, out     *os.File
	done       chan struct{}
	mu         sync.Mutex
	lines      int
	bytes      int
	dropped    int // over-long lines
	overflowed bool
}

// OpenChannel makes uid's FIFO in dir (root's, group gid, mode 0620: uid's processes may write
// it, never read, drain or remove it), opens it for reading and writing (a writer then never
// meets ENXIO, and the reader never EOF), and copies each line into a new file at copyPath, of
// root's alone, until Close. A FIFO a crashed run left for the uid, which this run holds now, is
// made anew.
func OpenChannel(dir string, uid, gid int, copyPath string) (*Channel, error) {
	if err := channelDir(dir); err != nil {
		return nil, err
	}
	fifo, err := ChannelPath(uid)
	if err != nil || fifo == "" {
		return nil, fmt.Errorf("naming the ledger channel of uid %d: %v", uid, err)
	}
	fifo = filepath.Join(dir, filepath.Base(fifo)) // a test's dir, or ChannelDir
	if err := os.Remove(fifo); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("removing a ledger channel an earlier run left: %w", err)
	}
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		return nil, &os.PathError{Op: "mkfifo", Path: fifo, Err: err}
	}
	// Chowned before the group may write: the mode the kernel judges is 0620 only once it is
	// root:gid (mkfifo obeys the umask, so the mode is set, not asked for).
	if err := errors.Join(os.Lchown(fifo, os.Geteuid(), gid), os.Chmod(fifo, 0o620)); err != nil {
		os.Remove(fifo)
		return nil, fmt.Errorf("handing the ledger channel %s to gid %d: %w", fifo, gid, err)
	}
	fd, err := unix.Open(fifo, unix.O_RDWR|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		os.Remove(fifo)
		return nil, &os.PathError{Op: "open the ledger channel", Path: fifo, Err: err}
	}
	out, err := os.OpenFile(copyPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		unix.Close(fd)
		os.Remove(fifo)
		return nil, fmt.Errorf("making the ledger channel's copy: %w", err)
	}
	// Non-blocking, so the runtime's poller reads it and Close ends a Read in progress.
	c := &Channel{FIFO: fifo, Copy: copyPath, r: os.NewFile(uintptr(fd), fifo), out: out, done: make(chan struct{})}
	go c.copyLines()
	return c, nil
}

// channelDir makes dir root's, 0711 (passed through, never listed: a launcher learns no other
// run's uid there), or checks the one there is: a folder of the kit's user that no one else may
// write, never a symlink.
func channelDir(dir string) error {
	if err := os.Mkdir(dir, 0o711); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("making the ledger channel folder: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("the ledger channel folder: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Geteuid() || fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("the ledger channel folder %s is not a folder of uid %d that no one else may write (%v); refused", dir, os.Geteuid(), fi.Mode())
	}
	return os.Chmod(dir, 0o711)
}

// copyLines copies each line until the FIFO is closed.
func (c *Channel) copyLines() {
	defer close(c.done)
	s := lineSplitter{max: maxChannelLine}
	buf := make([]byte, 64<<10)
	for {
		n, err := c.r.Read(buf)
		s.feed(buf[:n], c.keep)
		if err != nil { // closed (Close): open for writing too, the FIFO never reads EOF
			return
		}
	}
}

// keep appends one line to the copy, in one write, within the bounds; past them, one overflow
// line and nothing more.
func (c *Channel) keep(line []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if line == nil {
		c.dropped++
		return
	}
	if c.overflowed {
		return
	}
	if c.lines+1 > maxChannelLines || c.bytes+len(line)+1 > maxChannelBytes {
		c.overflowed = true
		b, _ := json.Marshal(Entry{Role: OverflowRole, Report: fmt.Sprintf("past %d lines or %d bytes; nothing after this line was copied", maxChannelLines, maxChannelBytes)})
		_, _ = c.out.Write(append(b, '\n'))
		return
	}
	c.lines, c.bytes = c.lines+1, c.bytes+len(line)+1
	_, _ = c.out.Write(append(line, '\n'))
}

// Close stops the copier and removes the FIFO. It says what the run had, for run.json.
func (c *Channel) Close() (string, error) {
	err := c.r.Close()
	<-c.done
	c.mu.Lock()
	defer c.mu.Unlock()
	err = errors.Join(err, c.out.Close())
	if rerr := os.Remove(c.FIFO); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
		err = errors.Join(err, rerr)
	}
	return c.summary(), err
}

// Overflowed says whether a flood made the copier stop.
func (c *Channel) Overflowed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.overflowed
}

func (c *Channel) summary() string {
	s := fmt.Sprintf("fifo by uid (%s; %d lines copied", c.FIFO, c.lines)
	if c.dropped > 0 {
		s += fmt.Sprintf(", %d over %d bytes dropped", c.dropped, maxChannelLine)
	}
	if c.overflowed {
		s += "; OVERFLOWED: a flood of lines stopped the copy"
	}
	return s + ")"
}

// lineSplitter cuts a byte stream into lines of at most max bytes; a longer one is dropped whole
// (emitted as nil), up to its newline. Empty lines are none.
type lineSplitter struct {
	line       []byte
	discarding bool
	max        int
}

func (s *lineSplitter) feed(p []byte, emit func([]byte)) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if !s.discarding {
			s.line = append(s.line, chunk...)
			if len(s.line) > s.max {
				s.line, s.discarding = s.line[:0], true
				emit(nil)
			}
		}
		if i < 0 {
			return
		}
		if !s.discarding && len(s.line) > 0 {
			emit(bytes.Clone(s.line))
		}
		s.line, s.discarding, p = s.line[:0], false, p[i+1:]
	}
}

// ChannelClaims reads the channel's copy as Claims does the pid ledger, once everything written
// into the FIFO before the call is in it: a suite writes a marker of its own (a nonce no launcher
// can know) into the FIFO, which keeps the order of writes, and waits, until deadline, for the
// copier to copy it. A copier that overflowed, or no marker by the deadline, is an error: the kit
// then cannot tell that every harness's line was read.
func ChannelClaims(fifo, copyPath string, deadline time.Time) ([]Entry, error) {
	fi, err := os.Stat(copyPath)
	if err != nil {
		return nil, fmt.Errorf("the ledger channel's copy: %w", err)
	}
	// The overflow line is the last one ever written, and shorter than this.
	from := max(0, fi.Size()-1024)
	nonce := NewRunToken()
	b, _ := json.Marshal(Entry{Role: SyncRole, Report: nonce})
	if err := writeLine(fifo, b, time.Until(deadline)); err != nil {
		return nil, fmt.Errorf("writing the kit's marker into the ledger channel: %w", err)
	}
	overflow, _ := json.Marshal(OverflowRole)
	err = Until(deadline, time.Millisecond, func() (bool, error) {
		tail, err := readFrom(copyPath, from)
		switch {
		case err != nil:
			return false, err
		case bytes.Contains(tail, []byte(nonce)):
			return true, nil
		case bytes.Contains(tail, overflow):
			return false, fmt.Errorf("the ledger channel's copier stopped at its bound (%d lines, %d bytes): a flood of lines came first, and a harness's may be lost", maxChannelLines, maxChannelBytes)
		}
		return false, nil
	})
	if errors.Is(err, ErrDeadline) {
		return nil, fmt.Errorf("the kit's marker written into the ledger channel %s was not in its copy %s by the deadline: the kit cannot tell that every harness's line was read", fifo, copyPath)
	}
	if err != nil {
		return nil, err
	}
	return Claims(copyPath)
}

// readFrom is the file at path from offset on.
func readFrom(path string, offset int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(io.NewSectionReader(f, offset, maxLedger), maxLedger))
}
