package runner

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/classproof/classproof/helpers/base/interrupt"
)

// One Ctrl-C asks the run to stop (SIGINT to its group, its cleanups run); a second one kills
// it, long before StopGrace: here the run ignores SIGINT, so only the second one can end it.
func TestASecondInterruptKillsTheRun(t *testing.T) {
	ctx, stop := interrupt.Notify(context.Background())
	defer stop()
	cmd := exec.Command("sh", "-c", `trap "" INT; echo ready; while :; do sleep 1; done`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	t.Cleanup(func() { // also when the test fails: the run's group goes, whatever supervise did
		if cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	})
	log := &syncBuf{}
	ready := make(chan struct{})
	go func() {
		for !strings.Contains(log.String(), "ready") {
			time.Sleep(20 * time.Millisecond)
		}
		close(ready)
	}()
	cmd.Stdout = log
	type result struct {
		interrupted bool
		err         error
	}
	done := make(chan result, 1)
	began := time.Now()
	go func() {
		_, interrupted, err := supervise(ctx, cmd, log, time.Time{}, nil)
		done <- result{interrupted, err}
	}()
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		t.Fatal("the run did not start within 10s")
	}
	_ = syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	select {
	case r := <-done:
		t.Fatalf("the run ended on the first interrupt, which it ignores: %+v\n%s", r, log.String())
	case <-time.After(time.Second):
	}
	_ = syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	select {
	case r := <-done:
		if r.err != nil || !r.interrupted {
			t.Errorf("supervise: interrupted %v, err %v", r.interrupted, r.err)
		}
		if took := time.Since(began); took > StopGrace/2 {
			t.Errorf("the run ended %v after it began: the second interrupt did not kill it", took)
		}
	case <-time.After(StopGrace / 2):
		t.Fatalf("the run still ran %v after the second interrupt\n%s", StopGrace/2, log.String())
	}
	if out := log.String(); !strings.Contains(out, "interrupted: sending interrupt") || !strings.Contains(out, "interrupted again: sending killed") {
		t.Errorf("what supervise said:\n%s", out)
	}
}

// syncBuf is a buffer the run and the test write and read at once.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
