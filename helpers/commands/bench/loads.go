package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/classproof/classproof/helpers/base/proc"
	"github.com/classproof/classproof/helpers/base/proctable"
	"github.com/classproof/classproof/helpers/lane"
	"github.com/classproof/classproof/helpers/launcher"
)

// loads are one run's load processes at one class. A launcher's class starts them as sessions of
// a launcher instance of the run's own, so that stopping it ends them all: the instance's set is
// the one whose token and cgroup they carry (a set of the run's own would have refused to signal
// them, as not its processes, and they outlived the run). A class the kit applies starts them
// itself.
type loads struct {
	probe string
	pids  []int
	kit   *proc.Set // the kit's own loads
	stopL func() error
}

// startLoads starts n processes of the probe (probe ARGS...) at class c.
func startLoads(ctx context.Context, d *launcher.Driver, c Class, probe string, n int, args ...string) (*loads, error) {
	ls := &loads{probe: probe, kit: proc.NewSet()}
	var l *launcher.Instance
	if c.Launcher != "" {
		var err error
		if l, ls.stopL, err = launch(ctx, d); err != nil {
			return ls, err
		}
	}
	for i := 0; i < n; i++ {
		pid, err := startLoad(l, d, c, probe, ls.kit, args...)
		if err != nil {
			return ls, err
		}
		ls.pids = append(ls.pids, pid)
	}
	return ls, nil
}

// allRun checks that every load started runs the probe (a load runs until it is killed): the run
// is measured under the load it names. A load a harness has just started may still be in exec,
// showing no arguments (proctable.ErrNoArgs) for as long as its class starves it: it is waited
// for, a bounded while; more loads than started fail at once.
func (ls *loads) allRun(class string) error {
	var running []int
	err := proc.Until(time.Now().Add(lane.Scale(10*time.Second)), 10*time.Millisecond, func() (bool, error) {
		var err error
		running, err = probes(ls.probe)
		return len(running) >= len(ls.pids), err
	})
	if err == nil || errors.Is(err, proc.ErrDeadline) {
		if len(running) == len(ls.pids) {
			return nil
		}
		err = fmt.Errorf("started %d load processes at %s, and %d run: %s", len(ls.pids), class, len(running), proctable.DescribeAll(running))
	}
	return err
}

// startLoad starts one load process at class c (through l for a launcher's class) and returns
// its pid.
func startLoad(l *launcher.Instance, d *launcher.Driver, c Class, probe string, set *proc.Set, args ...string) (int, error) {
	if c.Launcher != "" {
		s, err := l.StartSessionWith(launcher.Direct, map[string]string{d.Manifest.ClassEnv: c.Launcher},
			"--tool", probe, "--tool-args", strings.Join(args, " "))
		if err != nil {
			return 0, err
		}
		return s.Report.Tools[0].Pid, nil
	}
	cmd := exec.Command(probe, append(args, c.Flags...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	set.TrackOwned("bench "+c.Name+" load", cmd.Process.Pid)
	go func() { _ = cmd.Wait() }()
	return cmd.Process.Pid, nil
}

// stop ends every load and what started it, and checks, from the process table, that no
// process of the probe's is left: the next run (or the cost phase) starts from nothing of this one.
func (ls *loads) stop() error {
	errs := []error{ls.kit.KillAll(10 * time.Second)}
	if ls.stopL != nil {
		errs = append(errs, ls.stopL())
	}
	errs = append(errs, idle(ls.probe, "after the run"))
	return errors.Join(errs...)
}

// idle checks that no process of the bench's probe runs (between runs, and before the cost
// phase: the foreground probe has ended by then).
func idle(probe, when string) error {
	left, err := probes(probe)
	if err != nil {
		return fmt.Errorf("checking that no load is left %s: %w", when, err)
	}
	if len(left) > 0 {
		return fmt.Errorf("%d load processes still run %s: %s", len(left), when, proctable.DescribeAll(left))
	}
	return nil
}

// probes lists the live processes that run this bench's probe, as exec'd (its path, in the
// bench's own folder, is no one else's).
func probes(probe string) ([]int, error) {
	all, err := proctable.Table()
	if err != nil {
		return nil, err
	}
	var out []int
	for pid, in := range all {
		if in.Zombie {
			continue
		}
		if args, err := proctable.Args(pid); err == nil && len(args) > 0 && args[0] == probe {
			out = append(out, pid)
		}
	}
	return out, nil
}

// launch starts an instance of the target; stop kills it and everything it started, then removes
// its folder, and says what would not die.
func launch(ctx context.Context, d *launcher.Driver) (*launcher.Instance, func() error, error) {
	set := proc.NewSet()
	l, err := d.Launch(ctx, set, launcher.LaunchOptions{}, io.Discard, 10*time.Second)
	stop := func() error {
		err := set.KillAll(10 * time.Second)
		if l != nil {
			l.Close()
		}
		return err
	}
	return l, stop, err
}
