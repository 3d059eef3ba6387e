//go:build !linux

package limits

import (
	"time"

	"github.com/classproof/classproof/helpers/base/identity"
)

// Bound: no run has a uid of its own here.
func Bound(identity.Identity) error { return nil }

// Watch: no run has a uid of its own here.
func (l Limits) Watch(identity.Identity, time.Duration) func() (Peak, []string) {
	return func() (Peak, []string) { return Peak{}, nil }
}

// InForce: Bound sets nothing here.
func (l Limits) InForce(identity.Identity) string { return "none (not set on this OS)" }
