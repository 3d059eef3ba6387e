//go:build !linux

package sandbox

import "time"

// Bound: no run has a uid of its own here.
func (id Identity) Bound() error { return nil }

// Watch: no run has a uid of its own here.
func (id Identity) Watch(Limits, time.Duration) func() (Peak, []string) {
	return func() (Peak, []string) { return Peak{}, nil }
}

// InForce: Bound sets nothing here.
func (l Limits) InForce(Identity) string { return "none (not set on this OS)" }
