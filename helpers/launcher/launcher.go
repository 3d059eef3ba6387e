package launcher

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/classproof/classproof/helpers/base/confine"
	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/faults"
	"github.com/classproof/classproof/helpers/base/proc"
	"github.com/classproof/classproof/helpers/manifest"
)

// LaunchOptions are what a spec varies per launcher instance.
type LaunchOptions struct {
	DaemonEnv map[string]string // e.g. the class env var set in the daemon's environment
}

// Instance is one running instance of the target: its host and daemon, in a private directory.
type Instance struct {
	d         *Driver
	Dir       string
	vals      map[string]string
	DaemonPid int
	HostPid   int
	set       *proc.Set
	timeout   time.Duration
	ctx       context.Context // the caller's, from Launch: every process of the instance starts under it
	n         atomic.Int32
	asking    atomic.Int32 // client commands under way (run): each may wait for the others
	asked     atomic.Int64 // client commands asked for so far (askBound)
	c         *confined
	mu        sync.Mutex
	handed    []string            // report paths handed out (hand)
	commands  map[string][]string // the harness command handed with a report path (hand)
	sessions  map[int]bool        // sessions its processes made (setsid), kept once seen (candidates)
	seen      map[int]bool
	evidence  []string // the launcher's other processes, with their class (note)
	started   []Started
}

// Close ends what the kit kept for this instance (its sandbox's spawner) and removes its folder;
// the caller has killed its processes (the set) first.
func (l *Instance) Close() {
	live.remove(l)
	if l.c != nil {
		l.c.sp.Close()
	}
	_ = os.RemoveAll(l.Dir)
}

// ClassCalls are the class calls the instance's processes made so far, by call, where the run
// injects a fault or the probe (faults.Probe); nil where it injects nothing.
func (l *Instance) ClassCalls() map[string]int64 {
	if l.c == nil {
		return nil
	}
	return l.c.fault.Calls()
}

// Launch starts the host (if the target has one), then the daemon, and waits until both are
// ready. Every process is tracked in set; the caller kills the set and removes l.Dir.
//
// Every launcher process of the instance starts under ctx: its end (an interrupt, the spec's
// cleanup) kills the daemon and host and stops a client command mid-answer.
func (d *Driver) Launch(ctx context.Context, set *proc.Set, opts LaunchOptions, log io.Writer, timeout time.Duration) (*Instance, error) {
	l := &Instance{d: d, set: set, timeout: timeout, ctx: ctx}
	dir, err := privateDir(d.RunsAs, l.recording())
	if err != nil {
		if dir != "" {
			os.RemoveAll(dir)
		}
		return nil, err
	}
	l.Dir = dir
	live.add(l)
	l.vals = map[string]string{
		"dir":         dir,
		"home":        filepath.Join(dir, "home"),
		"socket":      filepath.Join(dir, "run", "d.sock"),
		"host_socket": filepath.Join(dir, "run", "h.sock"),
	}
	for k, v := range d.vals {
		l.vals[k] = v
	}
	may, err := l.may()
	if err != nil {
		return l, err
	}
	if l.c, err = newConfined(d.RunsAs, may); err != nil {
		return l, err
	}
	if f := faults.ForInstance(); f != nil { // the run's injected fault, in every process of the instance
		l.c.sp.InjectFault(f)
		l.c.fault = f
	}
	if h := d.Manifest.Host; h != nil {
		l.HostPid, err = l.startService("agent host", "host", *h, nil, log)
		if err != nil {
			return l, err
		}
	}
	l.DaemonPid, err = l.startService("daemon", "daemon", d.Manifest.Daemon, opts.DaemonEnv, log)
	return l, err
}

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

// may is what a launcher process of this instance may write: its private folder {dir} (home,
// sockets, TMPDIR, the harness's reports), the run's pid ledger (the harness appends to it), the
// manifest's writes and the driver's own extra folders (a bench's work folder).
func (l *Instance) may() (confine.Policy, error) {
	declared, err := writes("writes", l.d.Manifest.Writes, l.vals)
	if err != nil {
		return confine.Policy{}, fmt.Errorf("target manifest %s: %w", l.d.Manifest.Source, err)
	}
	p := confine.Policy{Dirs: append(append([]string{l.Dir}, declared...), l.d.Writes...)}
	if ledger := contract.Current().Ledger; ledger != "" {
		p.Files = []string{ledger}
	}
	fifo, err := l.channel()
	if err != nil {
		return confine.Policy{}, err
	}
	if fifo != "" {
		p.Files = append(p.Files, fifo) // the harness writes itself there too (proc.RecordInChannel)
	}
	return p, nil
}

// tmpdir points a launcher process's temporary files into its private folder.
func (l *Instance) tmpdir() map[string]string {
	return map[string]string{"TMPDIR": filepath.Join(l.Dir, "tmp")}
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

// TailBytes is how much of a launcher's output goes into a message: a daemon that printed 30 MB
// must not put 30 MB into every report.
const TailBytes = 64 << 10

// TailWriter keeps the last Max bytes written to it (TailBytes when Max is 0: a launcher may
// print without end) and how much came before; safe for the writer goroutine and a reader.
type TailWriter struct {
	Max   int
	mu    sync.Mutex
	b     []byte
	total int
}

func (t *TailWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total += len(p)
	t.b = append(t.b, p...)
	limit := t.Max
	if limit == 0 {
		limit = TailBytes
	}
	if over := len(t.b) - limit; over > 0 {
		t.b = append(t.b[:0:0], t.b[over:]...)
	}
	return len(p), nil
}

// String is the tail, saying how much was cut before it.
func (t *TailWriter) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if cut := t.total - len(t.b); cut > 0 {
		return fmt.Sprintf("[%d bytes cut; the last %d follow]\n%s", cut, len(t.b), t.b)
	}
	return string(t.b)
}

// LogBytes is how much of a launcher process's output goes to a log (the spec's GinkgoWriter,
// which every report carries, or the CLI's own output): a daemon printing 100 MB in a passing
// spec once made report.json and junit.xml 105 MB each.
const LogBytes = 256 << 10

// Capped passes the first max bytes written to it on to w, then one line saying the rest is not
// shown, and then nothing; it always reports the whole write as done, so the writer is never
// stopped by it.
func Capped(w io.Writer, max int, whose string) io.Writer {
	return &capped{w: w, max: max, whose: whose}
}

type capped struct {
	mu        sync.Mutex
	w         io.Writer
	max, n    int
	whose     string
	announced bool
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - c.n; room > 0 {
		_, _ = c.w.Write(p[:min(room, len(p))])
	}
	c.n += len(p)
	if c.n > c.max && !c.announced {
		c.announced = true
		_, _ = fmt.Fprintf(c.w, "\n[classproof: %s printed more than %d bytes; the rest is not shown here (its last %d bytes are kept for messages)]\n", c.whose, c.max, TailBytes)
	}
	return len(p), nil
}

// Roots are the launcher's own processes, below which its sessions run.
func (l *Instance) Roots() []int {
	if l.HostPid != 0 {
		return []int{l.DaemonPid, l.HostPid}
	}
	return []int{l.DaemonPid}
}
