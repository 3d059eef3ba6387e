package oracle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A ps that does not answer is killed at its bound and the observation fails, naming it: the
// oracle ran ps with no bound (issue 67), so one that hung held the spec past every timeout.
func TestAPsThatHangsIsKilledAtItsBound(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ps"), []byte("#!/bin/sh\nexec sleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	was := psBound
	psBound = 300 * time.Millisecond
	t.Cleanup(func() { psBound = was })
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := Observe(Subject{Role: "harness", Pid: os.Getpid()})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "no answer within 300ms (killed)") || !strings.Contains(err.Error(), "harness pid") {
			t.Errorf("a ps that hangs: %v; want it named, killed at its bound", err)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("the observation took %v, past its bound", took)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the observation still waits on a ps that hangs after 10 s")
	}
}
