package launcher

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/classproof/classproof/helpers/manifest"
)

// run runs one of the target's client commands with extra placeholder values and env. prefix, the
// kit's own words (helpers/base/fsize), goes before the expanded command and is never expanded itself.
func (l *Instance) run(at manifest.At, c manifest.Command, extra map[string]string, prefix ...string) (argv []string, out string, err error) {
	a, err := l.begin(at, c, extra, nil, prefix...)
	if err != nil {
		return a.argv, "", err
	}
	return a.end()
}

// asked is a client command begin started, until end has waited for it.
type asked struct {
	l     *Instance
	argv  []string // as started: the prefix, then the expanded command
	field string
	cmd   *exec.Cmd
	said  TailWriter // a client that prints without end costs a tail
	ctx   context.Context
	done  func()
	bound func() time.Duration
}

// begin starts a client command as run does, held for a burst where h is not nil; the caller
// ends it with end, which it must call once begin returned no error.
func (l *Instance) begin(at manifest.At, c manifest.Command, extra map[string]string, h *heldStart, prefix ...string) (*asked, error) {
	vals := map[string]string{}
	for k, v := range l.vals {
		vals[k] = v
	}
	for k, v := range extra {
		vals[k] = v
	}
	x, err := l.d.Manifest.Expand(at, c, vals)
	if err != nil {
		return &asked{}, err
	}
	a := &asked{l: l, field: x.Field, argv: append(append([]string(nil), prefix...), x.Argv...)}
	env, argv, files, released := l.d.env(l.set.Token(), l.tmpdir(), x.Env, l.sitesEnv()), a.argv, []*os.File(nil), (<-chan struct{})(nil)
	if h != nil {
		if argv, err = heldArgv(x.Field, a.argv, env, l.c); err != nil {
			return a, err
		}
		files, released = h.files, h.released
	}
	a.ctx, a.done, a.bound = l.askBound(released)
	a.cmd, err = l.d.start(a.ctx, l.set, x.Field, argv, l.Dir, env, &a.said, l.c, files...)
	if err != nil {
		a.done()
		return a, err
	}
	return a, nil
}

// end waits for the command begin started and gives what it said, and its error.
func (a *asked) end() (argv []string, out string, err error) {
	defer a.done()
	l := a.l
	err = a.cmd.Wait()
	// What it forked and left running (a session command's `sleep &`) is the spec's to kill.
	l.set.TrackGroup(l.d.Manifest.Name+" "+a.field+" (left running)", a.cmd.Process.Pid)
	if errors.Is(err, exec.ErrWaitDelay) {
		err = nil // it exited; something it forked held its output open
	}
	if err != nil {
		if hint := l.d.refused(a.said.String(), l.c, "writes"); hint != "" {
			err = fmt.Errorf("%w%s", err, hint)
		}
	}
	if a.ctx.Err() != nil && err != nil {
		// Killed at the timeout. A command that exited by itself is its own answer, however late
		// Wait saw it (the soak had a session answer, then be called a timeout with a nil error).
		err = fmt.Errorf("no answer within %v (killed, with its process group): %w", a.bound(), err)
	}
	return a.argv, a.said.String(), err
}
