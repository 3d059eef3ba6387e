package launcher

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/classproof/classproof/helpers/base/proc"
	"github.com/classproof/classproof/helpers/manifest"
)

// A correct launcher may serve one request at a time. A command asked for while another of the
// same instance is under way waits for it, so its bound is two lone commands', not one: a burst
// of sessions from a serial daemon on a loaded runner is no hang. One command alone keeps the
// one bound (TestClientCommandsAreBoundedWithTheirGroup).
func TestACommandAskedWhileAnotherIsUnderWayMayWaitForIt(t *testing.T) {
	const lone = 2 * time.Second
	l := launchedFrom(t, `
name: t
class_env: T_CLASS
background: {darwin: darwinbg, linux: idle}
daemon: {run: [sleep, "600"]}
session: {direct: [true, "{profile}"]}
config:
  set: [true, "{key}={value}"]
  get: [flock, "{home}/serial", sh, -c, 'touch "$0.held"; sleep 1.4', "{home}/serial", "{key}"]
  unset: [true, "{key}"]
  file: "{home}/c.json"
  key: k
  file_key: k
`, lone)

	first := make(chan error, 1)
	go func() { _, err := l.ConfigGet("k"); first <- err }()
	// The second is asked for once the first holds the launcher: it waits out the first's 1.4 s,
	// then takes its own, past one lone bound.
	held := filepath.Join(l.Dir, "home", "serial.held")
	if err := proc.Until(time.Now().Add(lone), 5*time.Millisecond, func() (bool, error) {
		_, err := os.Stat(held)
		return err == nil, nil
	}); err != nil {
		t.Fatalf("the first command never held the launcher (%s): %v", held, err)
	}
	start := time.Now()
	_, err := l.ConfigGet("k")
	took := time.Since(start)
	if err != nil {
		t.Errorf("the command asked for while another was under way: %v (after %v; a lone bound is %v)", err, took.Round(time.Millisecond), lone)
	}
	if err := <-first; err != nil {
		t.Errorf("the first command: %v", err)
	}
	if took < lone {
		t.Errorf("the second command took %v, within one lone bound: the manifest did not serialize it, so nothing was tested", took.Round(time.Millisecond))
	}
}

// A serial launcher need not serve in the order asked: the first of two commands may wait for the
// second, asked for while it waited, so its bound grows with those asked for after it too.
func TestACommandMayWaitForOneAskedForAfterIt(t *testing.T) {
	const lone = 2 * time.Second
	l := launchedFrom(t, `
name: t
class_env: T_CLASS
background: {darwin: darwinbg, linux: idle}
daemon: {run: [sleep, "600"]}
session: {direct: [true, "{profile}"]}
config:
  set: [true, "{key}={value}"]
  get: [sh, -c, 'if [ "$1" = first ]; then touch "$0.asked"; while [ ! -e "$0.held" ]; do sleep 0.01; done; exec flock "$0" sleep 1.4; fi; exec flock "$0" sh -c "touch \"\$0.held\"; sleep 1.4" "$0"', "{home}/serial", "{key}"]
  unset: [true, "{key}"]
  file: "{home}/c.json"
  key: k
  file_key: k
`, lone)

	first := make(chan error, 1)
	start := time.Now()
	go func() { _, err := l.ConfigGet("first"); first <- err }()
	asked := filepath.Join(l.Dir, "home", "serial.asked")
	if err := proc.Until(time.Now().Add(lone), 5*time.Millisecond, func() (bool, error) {
		_, err := os.Stat(asked)
		return err == nil, nil
	}); err != nil {
		t.Fatalf("the first command never started (%s): %v", asked, err)
	}
	if _, err := l.ConfigGet("second"); err != nil {
		t.Errorf("the second command, served first: %v", err)
	}
	err := <-first
	took := time.Since(start)
	if err != nil {
		t.Errorf("the first command, served after one asked for later: %v (after %v; a lone bound is %v)", err, took.Round(time.Millisecond), lone)
	}
	if took < lone {
		t.Errorf("the first command took %v, within one lone bound: the manifest did not make it wait, so nothing was tested", took.Round(time.Millisecond))
	}
}

// launchedFrom starts an instance of the manifest text with a lone command bound of timeout; its
// processes are killed and its folder removed when the test ends.
func launchedFrom(t *testing.T, text string, timeout time.Duration) *Instance {
	t.Helper()
	m, err := manifest.Parse("m.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	d, err := New(m, manifest.Paths{Kit: t.TempDir(), Bin: reachableBin(t)}, "")
	if err != nil {
		t.Fatal(err)
	}
	set := proc.NewSet()
	t.Cleanup(func() { _ = set.KillAll(5 * time.Second) })
	l, err := d.Launch(context.Background(), set, LaunchOptions{}, io.Discard, timeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	return l
}
