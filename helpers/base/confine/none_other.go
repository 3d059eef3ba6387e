//go:build !linux && !darwin

package confine

import "os/exec"

func detect() State { return State{Kind: "none", Why: "no sandbox is known to the kit on this OS"} }

// Spawner starts processes as they are: there is no sandbox here, and the run says so.
type Spawner struct{}

// NewSpawner is a Spawner; p is not enforced here.
func NewSpawner(p Policy) *Spawner { return &Spawner{} }

// Start starts cmd as it is.
func (s *Spawner) Start(cmd *exec.Cmd) error { return cmd.Start() }

// Close has nothing to end.
func (s *Spawner) Close() {}

var kernelDirs []string

// InjectFault does nothing here: faults are injected on Linux only (faults.Check says so first).
func (s *Spawner) InjectFault(Fault) {}
