//go:build !linux

package cgroup

import (
	"errors"
	"fmt"
	"os/exec"
	"runtime"
)

// errNoCgroup is why a platform has no cgroup.
var errNoCgroup = errors.New("no cgroup v2 on this OS")

// On macOS there is no cgroup: a run finds its launcher's processes by what it tracks (process
// groups, the run's token, the ledger, descendants by parent pid); docs/containment.md says what
// that misses.
func openRoot() (*Cgroup, bool, error) {
	return nil, false, fmt.Errorf("%w (%s): a process that leaves its group and its parent is found only by the run's token", errNoCgroup, runtime.GOOS)
}

// The methods exist so that callers need no build tags; with no cgroup they are never reached.
func (c *Cgroup) Child(string) (*Cgroup, error)  { return nil, errNoCgroup }
func (c *Cgroup) Start(*exec.Cmd)                {}
func (c *Cgroup) Holds(int) bool                 { return false }
func (c *Cgroup) Members() ([]int, error)        { return nil, errNoCgroup }
func (c *Cgroup) Close(func()) ([]string, error) { return nil, nil }
func (c *Cgroup) Kill() error                    { return errNoCgroup }
