package launcher

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"github.com/classproof/classproof/helpers/base/proc"
	"github.com/classproof/classproof/helpers/manifest"
)

// service is a started daemon or host: its output (the tail is kept for messages) and when it
// exited.
type service struct {
	out    TailWriter
	exited chan struct{}
	code   int
}

func (l *Instance) startService(role, field string, s manifest.Service, extraEnv map[string]string, log io.Writer) (int, error) {
	x, err := l.d.Manifest.Expand(manifest.Section(field), s.Command(), l.vals)
	if err != nil {
		return 0, err
	}
	svc := &service{exited: make(chan struct{})}
	// Its own process group (in start): the kit kills the group, and a signal meant for the kit
	// (^C) does not reach the launcher before the kit has cleaned up.
	cmd, err := l.d.start(l.ctx, l.set, role, x.Argv, l.Dir, l.d.env(l.set.Token(), l.tmpdir(), x.Env, extraEnv, l.sitesEnv()),
		io.MultiWriter(&svc.out, Capped(log, LogBytes, l.d.Manifest.Name+" "+role)), l.c)
	if err != nil {
		return 0, err
	}
	pid := cmd.Process.Pid
	go func() {
		_ = cmd.Wait()
		svc.code = cmd.ProcessState.ExitCode()
		close(svc.exited)
	}()
	err = l.waitReady(role, field, pid, svc, s.Ready)
	var exited *ExitedError
	if errors.As(err, &exited) {
		exited.Output += l.d.refused(exited.Output, l.c, "writes")
	}
	return pid, err
}

// waitReady waits, within the launch timeout, until the service says it is ready the way its
// manifest declares: a socket that accepts, a path that exists, a probe that exits 0.
func (l *Instance) waitReady(role, field string, pid int, svc *service, r manifest.Ready) error {
	var what string
	var probe func() error
	switch {
	case r.Socket != "":
		sock, err := l.d.Manifest.ExpandOne(field+".ready.socket", r.Socket, l.vals)
		if err != nil {
			return err
		}
		what = sock + " accepted a connection"
		probe = func() error {
			c, err := net.Dial("unix", sock)
			if err == nil {
				c.Close()
			}
			return err
		}
	case r.Path != "":
		path, err := l.d.Manifest.ExpandOne(field+".ready.path", r.Path, l.vals)
		if err != nil {
			return err
		}
		what = path + " existed"
		probe = func() error { _, err := os.Stat(path); return err }
	case len(r.Exec) > 0:
		what = strings.Join(r.Exec, " ") + " exited 0"
		probe = func() error {
			argv, out, err := l.run(manifest.At{Run: field + ".ready.exec"}, manifest.Command{Run: r.Exec}, nil)
			if err != nil {
				return fmt.Errorf("%q: %v: %s", strings.Join(argv, " "), err, strings.TrimSpace(out))
			}
			return nil
		}
	default:
		return nil
	}
	var last error
	err := proc.Until(time.Now().Add(l.timeout), 10*time.Millisecond, func() (bool, error) {
		if last = probe(); last == nil {
			return true, nil
		}
		select {
		case <-svc.exited:
			return false, &ExitedError{Target: l.d.Manifest.Name, Role: role, Pid: pid, Code: svc.code, Waiting: what, Output: svc.out.String()}
		default:
			return false, nil
		}
	})
	if errors.Is(err, proc.ErrDeadline) {
		return fmt.Errorf("%s %s (pid %d): not ready within %v (waiting until %s): %v", l.d.Manifest.Name, role, pid, l.timeout, what, last)
	}
	return err
}

// ExitedError is a daemon or host that exited before it was ready: a crash, or a refusal to
// start (a bad class in its env, for a target that declares conventions.bad_daemon_env:
// refuse-start).
type ExitedError struct {
	Target, Role string
	Pid, Code    int
	Waiting      string // what readiness was being waited for
	Output       string // the tail of what it printed
}

func (e *ExitedError) Error() string {
	return fmt.Sprintf("%s %s (pid %d) exited with code %d before %s; it said:\n%s", e.Target, e.Role, e.Pid, e.Code, e.Waiting, e.Output)
}
