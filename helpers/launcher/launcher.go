package launcher

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/classproof/classproof/helpers/base/confine"
	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/faults"
	"github.com/classproof/classproof/helpers/base/proc"
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

// Roots are the launcher's own processes, below which its sessions run.
func (l *Instance) Roots() []int {
	if l.HostPid != 0 {
		return []int{l.DaemonPid, l.HostPid}
	}
	return []int{l.DaemonPid}
}
