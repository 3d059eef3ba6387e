package proc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// channelOf opens a ledger channel for otherUID in a folder of the test's that uid can pass
// through (t.TempDir's two levels are 0700), closed at the test's end.
func channelOf(t *testing.T) *Channel {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: the channel is root's, handed to another uid's group")
	}
	dir := t.TempDir()
	if err := os.Chmod(filepath.Dir(dir), 0o711); err != nil {
		t.Fatal(err)
	}
	c, err := OpenChannel(filepath.Join(dir, "ledger"), otherUID, otherUID, filepath.Join(dir, "pids.channel"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = c.Close() })
	return c
}

// The launcher's uid may write the channel and nothing more: it can neither open it for reading
// (and drain a harness's line before the copier reads it) nor remove or re-mode it. The control:
// the same uid opens it for writing.
func TestTheLaunchersUIDMayOnlyWriteTheChannel(t *testing.T) {
	c := channelOf(t)
	if out, err := asUser(otherUID, `printf '\n' >> "$1"`, c.FIFO); err != nil {
		t.Fatalf("control: uid %d could not write the channel %s: %v %s", otherUID, c.FIFO, err, out)
	}
	for _, probe := range []string{`exec 3< "$1"`, `exec 3<> "$1"`, `rm -f "$1"`, `chmod 666 "$1"`, `mv "$1" "$1.x"`} {
		if out, err := asUser(otherUID, probe, c.FIFO); err == nil {
			t.Errorf("uid %d ran %s on the ledger channel %s: no error (%s); want the kernel's refusal", otherUID, probe, c.FIFO, out)
		}
	}
	if fi, err := os.Lstat(c.FIFO); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the channel after the probes: %v %v; want the FIFO, there", fi, err)
	}
}

// A line framed as the harness writes it survives what another writer of the channel does before
// it: an unterminated fragment (which would glue itself to the line's front) and a line past the
// bound (dropped whole, up to its newline, and no further). ChannelClaims reads it once the
// kit's own marker came through.
func TestAHarnessLineSurvivesFragmentsAndOverlongLines(t *testing.T) {
	c := channelOf(t)
	w := writer(t, c.FIFO)
	harness, _ := json.Marshal(Entry{Role: HarnessRole, Pid: 4242, Start: 7, Report: "/r/report-1.json"})
	write(t, w, []byte(`{"role":"harness (self-recorded)","pid":`))
	if err := writeLine(c.FIFO, harness, time.Second); err != nil {
		t.Fatal(err)
	}
	write(t, w, bytes.Repeat([]byte("x"), 3*maxChannelLine))
	if err := writeLine(c.FIFO, harness, time.Second); err != nil {
		t.Fatal(err)
	}
	got, err := ChannelClaims(c.FIFO, c.Copy, time.Now().Add(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var harnesses int
	for _, e := range got {
		if e.Role == HarnessRole && e.Pid == 4242 && e.Report == "/r/report-1.json" {
			harnesses++
		}
	}
	if harnesses != 2 {
		t.Errorf("the copy holds the harness's line %d times; want 2 (after a fragment, after an over-long line): %+v", harnesses, got)
	}
	if says, _ := c.Close(); !strings.Contains(says, "1 over 4096 bytes dropped") {
		t.Errorf("the channel says %q; want the over-long line counted as dropped", says)
	}
}

// A flood past the bound stops the copy with an overflow line, and every reader of the copy is
// told so: a harness's line after the flood is not in it, and ChannelClaims must not read that as
// "no harness". The control: before the flood, it reads the copy.
func TestAFloodedChannelFailsItsReaders(t *testing.T) {
	c := channelOf(t)
	if _, err := ChannelClaims(c.FIFO, c.Copy, time.Now().Add(5*time.Second)); err != nil {
		t.Fatalf("control: reading the copy before the flood: %v", err)
	}
	w := writer(t, c.FIFO)
	flood := bytes.Repeat([]byte("{}\n"), 4096)
	for sent := 0; sent <= maxChannelLines; sent += 4096 {
		write(t, w, flood)
	}
	_, err := ChannelClaims(c.FIFO, c.Copy, time.Now().Add(10*time.Second))
	if err == nil || !strings.Contains(err.Error(), "stopped at its bound") {
		t.Fatalf("ChannelClaims after a flood of %d lines: %v; want the overflow named", maxChannelLines+4096, err)
	}
	if !c.Overflowed() {
		t.Error("the channel does not say it overflowed")
	}
}

// writer opens the channel for writing, blocking, as a launcher's process may.
func writer(t *testing.T, fifo string) *os.File {
	f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func write(t *testing.T, f *os.File, b []byte) {
	t.Helper()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
}

// A FIFO that is not root's is refused by a harness, and no channel at all is no error.
func TestAHarnessWritesOnlyARootFIFO(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: to make a FIFO of another uid")
	}
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := unix.Mkfifo(fifo, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(fifo, otherUID, otherUID); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := writeLine(fifo, []byte("{}"), time.Second); err == nil || !strings.Contains(err.Error(), "no FIFO of root's") {
		t.Errorf("writing into uid %d's FIFO: %v; want it refused", otherUID, err)
	}
	if err := writeLine(filepath.Join(t.TempDir(), "none"), []byte("{}"), time.Second); !os.IsNotExist(err) {
		t.Errorf("writing into no FIFO: %v; want not exist", err)
	}
}

// A harness a launcher starts in a user namespace of its own (unshare -U: getuid() is the
// overflow uid there, and the namespace is another) finds no channel under its name, and must
// not call that "no channel": the folder, root's outside, is not root's as it sees it. The
// control: the same child in the kit's own namespace, where root has no channel, records nothing
// and no error.
func TestAHarnessInAUserNamespaceOfItsOwnIsRefused(t *testing.T) {
	if os.Getenv(recordChild) == "1" {
		fmt.Printf("RESULT %v\n", RecordInChannel(HarnessRole, os.Getpid(), "/r/report-1.json", time.Second))
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root: to make the channel folder")
	}
	if err := channelDir(ChannelDir); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		flags uintptr
		want  string
	}{{0, "RESULT <nil>"}, {unix.CLONE_NEWUSER, "not root: it runs in a user namespace of its own"}} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestAHarnessInAUserNamespaceOfItsOwnIsRefused$")
		cmd.Env = append(os.Environ(), recordChild+"=1")
		cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: c.flags}
		out, err := cmd.CombinedOutput()
		if c.flags != 0 && errors.Is(err, syscall.EPERM) {
			// Docker's default seccomp profile refuses CLONE_NEWUSER without CAP_SYS_ADMIN; the
			// host and the VM of ci/rehearse run this case.
			t.Skipf("this place refuses a user namespace (clone flags %#x: %v): no harness can run in one here", c.flags, err)
		}
		if err != nil || !strings.Contains(string(out), c.want) {
			t.Errorf("the harness's record, clone flags %#x: %v %s; want %q", c.flags, err, out, c.want)
		}
	}
}

// recordChild makes the test binary the harness's record in a child.
const recordChild = "PROC_TEST_RECORD_IN_CHANNEL"

// The FIFO of a run killed before it removed its channel (kill -9) has no reader: the next
// harness of that uid, in a run without a channel, records nothing there and starts, where it
// had failed a correct launcher (ENXIO). A live run's FIFO always has its reader.
func TestAChannelLeftByAKilledRunIsNoChannel(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: to make the channel folder")
	}
	if err := channelDir(ChannelDir); err != nil {
		t.Fatal(err)
	}
	path, err := ChannelPath(os.Getuid())
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Mkfifo(path, 0o620); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(path) })
	if err := RecordInChannel(HarnessRole, os.Getpid(), "/r/report-1.json", time.Second); err != nil {
		t.Errorf("a harness of uid %d beside %s, a FIFO with no reader: %v; want no error, no channel", os.Getuid(), path, err)
	}
}
