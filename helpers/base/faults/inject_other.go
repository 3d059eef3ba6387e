//go:build !linux

package faults

import "fmt"

// Syscalls are the class system calls a fault can be injected into: none off Linux (seccomp).
var Syscalls = map[string]uintptr{}

// Check says no: fault injection is Linux only.
func Check(name string) error {
	return fmt.Errorf("fault %q: fault injection needs Linux (seccomp user notification)", name)
}

// Modes of a fault: none off Linux.
var Modes []string

// Describe is the fault's name: none is injected off Linux.
func Describe(name string) string { return name }

// Injector injects nothing off Linux.
type Injector struct{}

// ForInstance is nil: no run injects a fault here (Check refused it before the run).
func ForInstance() *Injector { return nil }

// Install refuses, as Check does.
func (in *Injector) Install() error {
	return fmt.Errorf("fault injection needs Linux (seccomp user notification)")
}

// Close has nothing to end.
func (in *Injector) Close() {}

// Calls is nil: nothing is injected or counted here.
func (in *Injector) Calls() map[string]int64 { return nil }
