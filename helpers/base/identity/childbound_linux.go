package sandbox

import (
	"time"

	"github.com/classproof/classproof/helpers/base/contract"
)

// A process of a launcher user's ids that does the kit's work (actas.Child, actas.Open) is that
// user's to stop or slow; the kit kills it past its bound, scaled by the run's time scale.

// actBound bounds a class call made, or the caller's memory opened, for a caller a fault
// listener holds: one system call, and the caller waits for it.
func actBound() time.Duration { return scaled(5 * time.Second) }

// sweepBound bounds a sweep's work as a run's uid: a kill of all, a removal of every tree it left.
func sweepBound() time.Duration { return scaled(time.Minute) }

// scaled is d times the run's time scale; an invalid scale, which the run refused before it
// began, leaves d.
func scaled(d time.Duration) time.Duration {
	s, _ := contract.Scaled(d)
	return s
}
