package launcher

import (
	"io"
	"net"
	"path/filepath"
	"testing"
	"time"
)

// The socket readiness probe connects and closes without sending a byte (docs/manifest.md,
// "Readiness"): an agent host that takes a connection for a spawn spec gets an empty one, which
// it should take as no spec, never bytes that read as a malformed spec.
func TestTheSocketProbeSendsNoByte(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "ready.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan []byte, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- nil
			return
		}
		defer c.Close()
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		b, _ := io.ReadAll(c)
		got <- b
	}()
	launchedFrom(t, `
name: t
class_env: T_CLASS
background: {darwin: darwinbg, linux: idle}
daemon: {run: [sleep, "600"], ready: {socket: "`+sock+`"}}
session: {direct: [true, "{profile}"]}
`, 5*time.Second)
	select {
	case b := <-got:
		if b == nil || len(b) > 0 {
			t.Errorf("the probe's connection carried %q (nil: none came); want an empty one", b)
		}
	case <-time.After(10 * time.Second):
		t.Error("the probe's connection was neither made nor closed")
	}
}
