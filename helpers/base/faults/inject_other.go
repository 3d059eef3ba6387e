//go:build !linux

package sandbox

import "fmt"

// Faults are the class system calls a fault can be injected into: none off Linux (seccomp).
var Faults = map[string]uintptr{}

// CheckFault says no: fault injection is Linux only.
func CheckFault(name string) error {
	return fmt.Errorf("fault %q: fault injection needs Linux (seccomp user notification)", name)
}

// Modes of a fault: none off Linux.
var Modes []string

// DescribeFault is the fault's name: none is injected off Linux.
func DescribeFault(name string) string { return name }
