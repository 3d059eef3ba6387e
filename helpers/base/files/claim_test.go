package files

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A harness report the launcher's processes replaced: a symlink to /dev/zero (which once ran the
// test process out of memory), a FIFO nobody writes (which would block), a file too large. Each
// is refused at once, naming the path; a small regular file is read.
func TestAClaimIsARegularFileOfBoundedSize(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "report.json")
	os.WriteFile(good, []byte(`{"harness_pid": 4242}`), 0o600)
	if b, err := ReadClaim(good, 64); err != nil || string(b) != `{"harness_pid": 4242}` {
		t.Errorf("a small report: %q %v", b, err)
	}
	zero := filepath.Join(dir, "zero.json")
	os.Symlink("/dev/zero", zero)
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.json")
	os.WriteFile(big, []byte(strings.Repeat("x", 65)), 0o600)
	for path, want := range map[string]string{zero: "is a symlink", fifo: "is not a regular file", big: "is over 64 bytes"} {
		start := time.Now()
		_, err := ReadClaim(path, 64)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v; want %q", path, err, want)
		}
		if time.Since(start) > time.Second {
			t.Errorf("%s took %v to refuse", path, time.Since(start))
		}
	}
}
