package launcher

import (
	"context"
	"io"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/classproof/classproof/helpers/base/proc"
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
	m, err := Parse("m.yaml", []byte(`
name: t
class_env: T_CLASS
background: {darwin: darwinbg, linux: idle}
daemon: {run: [sleep, "600"], ready: {socket: "`+sock+`"}}
session: {direct: [true, "{profile}"]}
`))
	if err != nil {
		t.Fatal(err)
	}
	d, err := New(m, Paths{Kit: t.TempDir(), Bin: reachableBin(t)}, "")
	if err != nil {
		t.Fatal(err)
	}
	set := proc.NewSet()
	defer set.KillAll(5 * time.Second)
	l, err := d.Launch(context.Background(), set, LaunchOptions{}, io.Discard, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	select {
	case b := <-got:
		if b == nil || len(b) > 0 {
			t.Errorf("the probe's connection carried %q (nil: none came); want an empty one", b)
		}
	case <-time.After(10 * time.Second):
		t.Error("the probe's connection was neither made nor closed")
	}
}
