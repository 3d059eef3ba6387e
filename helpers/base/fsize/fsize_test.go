package fsize

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The limit travels as decimal bytes, never as a shell's blocks: the command line is the same
// on linux and darwin, and no shell is in it.
func TestPrefixIsBytesWithNoShell(t *testing.T) {
	p, err := Prefix(2048)
	if err != nil {
		t.Fatal(err)
	}
	self, _ := os.Executable()
	if want := []string{self, marker, "2048"}; !reflect.DeepEqual(p, want) {
		t.Fatalf("Prefix(2048) = %q, want %q", p, want)
	}
	for _, a := range p {
		if b := filepath.Base(a); b == "sh" || b == "bash" || b == "dash" {
			t.Errorf("a shell in the command line: %q", p)
		}
	}
	if n, err := Limit(p[2]); err != nil || n != 2048 {
		t.Errorf("Limit(%q) = %d, %v; want 2048 bytes", p[2], n, err)
	}
	for _, bad := range []string{"4k", "-1", "", "2048 "} {
		if _, err := Limit(bad); err == nil || !strings.Contains(err.Error(), "not a byte count") {
			t.Errorf("Limit(%q) accepted: %v", bad, err)
		}
	}
	if _, err := Prefix(-1); err == nil {
		t.Error("a negative limit accepted")
	}
}

// The real thing: this test binary starts itself again under the limit, and dd writes through
// it. A write past the limit fails and stops at exactly the limit; one within it succeeds.
func TestWritesStopAtTheLimitInBytes(t *testing.T) {
	dir := t.TempDir()
	run := func(name string, blocks int) (string, int64, error) {
		p, err := Prefix(2048)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, name)
		cmd := exec.Command(p[0], append(p[1:], "dd", "if=/dev/zero", "of="+out, "bs=512", "count="+string(rune('0'+blocks)))...)
		said, err := cmd.CombinedOutput()
		fi, statErr := os.Stat(out)
		if statErr != nil {
			t.Fatalf("%s: %v (it said %s)", name, statErr, said)
		}
		return string(said), fi.Size(), err
	}
	if said, size, err := run("within", 4); err != nil || size != 2048 {
		t.Errorf("2048 bytes under a 2048-byte limit: size %d, err %v, said %s", size, err, said)
	}
	said, size, err := run("past", 6)
	if err == nil {
		t.Errorf("3072 bytes under a 2048-byte limit succeeded (size %d): said %s", size, said)
	}
	if size != 2048 {
		t.Errorf("a write past the limit left %d bytes, want it stopped at 2048", size)
	}
}

func TestAMissingCommandIsAnError(t *testing.T) {
	p, _ := Prefix(2048)
	said, err := exec.Command(p[0], append(p[1:], "classproof-no-such-command")...).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 126 || !strings.Contains(string(said), "classproof-no-such-command") {
		t.Errorf("err %v, said %q; want exit 126 naming the command", err, said)
	}
}
