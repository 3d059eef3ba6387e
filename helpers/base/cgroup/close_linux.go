package cgroup

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/proctable"
)

// Close is the end of c: every process still in it that neither ends on its own within the exit
// grace (ExitGrace, scaled) nor is dying already is a leak, named with its pid, args and class;
// then cgroup.kill, a wait until the kernel says it is empty, and the folders removed, deepest
// first.
func (c *Cgroup) Close(reap func()) (leaks []string, err error) {
	grace, _ := contract.Scaled(ExitGrace) // a bad scale: the suites refused it (lane.Scale)
	return c.close(grace, reap)
}

// ExitGrace is how long, unscaled, a process left in a cgroup after the kit killed what it
// tracks has to end on its own before it is named a leak: a launcher's exec helper that waited
// for the harness the cleanup killed exits right after it, and may still be on its way out when
// the cleanup looks. A process that escaped the kit's tracking and stays (a double-forked
// setsid daemon) is still there when the grace ends.
const ExitGrace = 2 * time.Second

func (c *Cgroup) close(grace time.Duration, reap func()) (leaks []string, err error) {
	left, err := outlasting(grace, c.Members)
	if err != nil {
		return nil, fmt.Errorf("cgroup %s: reading its members: %w", c.Path, err)
	}
	leaks = leftovers(left, c.Members)
	if err := c.kill(proctable.StarvedFactor*10*time.Second, reap); err != nil {
		return leaks, err
	}
	if c.made {
		err = c.remove()
	}
	if c.fd >= 0 {
		_ = unix.Close(c.fd)
		c.fd = -1
	}
	return leaks, err
}

// outlasting reads the members until there are none or grace has passed, and returns those then
// still there and not dying (proctable.Exiting: a SIGKILL pending, or every thread exiting). A
// read that finds only dying members is no answer: they are read again until they are gone, so a
// process forked as its parent exits (a chain that hops from pid to pid) is read too. A process
// that is waiting for a CPU or the disk (proctable.Starved: a background helper under a full load)
// is given up to proctable.StarvedFactor times the grace, as a killed one is; one asleep is not.
// Each read is bounded.
func outlasting(grace time.Duration, members func() ([]int, error)) ([]int, error) {
	start := time.Now()
	for {
		pids, err := members()
		if err != nil || len(pids) == 0 {
			return nil, err
		}
		var left []int
		for _, pid := range pids {
			if !proctable.Exiting(pid) {
				left = append(left, pid)
			}
		}
		waited := time.Since(start)
		if waited >= proctable.StarvedFactor*grace || (waited >= grace && len(left) > 0 && proctable.Starved(left...) == "") {
			return left, nil
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// leftovers names the members outlasting left (Leftover). One gone or dying since (a chain that
// hops pids: under a slow machine the pid read is gone before it is described) is read again:
// what is in the cgroup now, a few times, so that the leak names what runs rather than a pid
// that is gone; where nothing is there any more, the first names stand.
func leftovers(left []int, members func() ([]int, error)) []string {
	var first []string
	for try := 0; try < 4; try++ {
		var named []string
		moved := false
		for _, pid := range left {
			named = append(named, Leftover(pid))
			moved = moved || proctable.Exiting(pid)
		}
		if first == nil {
			first = named
		}
		if !moved {
			return named
		}
		pids, err := members()
		left = left[:0]
		for _, pid := range pids {
			if err == nil && !proctable.Exiting(pid) {
				left = append(left, pid)
			}
		}
		if len(left) == 0 {
			break
		}
	}
	return first
}

// Kill sends SIGKILL to every process in c and below, without waiting (a supervisor past its
// deadline); Close is the cleanup.
func (c *Cgroup) Kill() error {
	return os.WriteFile(filepath.Join(c.Path, "cgroup.kill"), []byte("1"), 0)
}

// kill writes cgroup.kill (SIGKILL to every process in c and below, one that forks meanwhile
// included), waits until cgroup.events says "populated 0", then reaps: the caller knows which
// children are its own to wait for (proc.Reap, for a subreaper's orphans).
func (c *Cgroup) kill(wait time.Duration, reap func()) error {
	if err := c.Kill(); err != nil {
		return fmt.Errorf("cgroup %s: writing cgroup.kill: %w", c.Path, err)
	}
	deadline := time.Now().Add(wait)
	for {
		b, err := os.ReadFile(filepath.Join(c.Path, "cgroup.events"))
		if err != nil {
			return fmt.Errorf("cgroup %s: %w", c.Path, err)
		}
		if bytes.Contains(b, []byte("populated 0")) {
			reap() // what was handed to the kit as a subreaper
			return nil
		}
		if time.Now().After(deadline) {
			pids, _ := c.Members()
			return fmt.Errorf("cgroup %s: still populated %v after cgroup.kill: %s", c.Path, wait, proctable.DescribeAll(pids))
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// remove removes c and its children, deepest first.
func (c *Cgroup) remove() error {
	var dirs []string
	_ = filepath.WalkDir(c.Path, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	var errs []error
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := os.Remove(dirs[i]); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("removing cgroup %s: %w", dirs[i], err))
		}
	}
	return errors.Join(errs...)
}
