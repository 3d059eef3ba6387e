package faults

import (
	"time"

	"github.com/classproof/classproof/helpers/base/contract"
)

// actBound bounds a class call made, or the caller's memory opened, for a caller a fault listener
// holds: one system call, and the caller waits for it. The process of the caller's ids that does
// it (actas.Child, actas.Open) is that user's to stop or slow, so the kit kills it past this bound,
// scaled by the run's time scale (an invalid scale, which the run refused before it began, leaves
// it as it is).
func actBound() time.Duration {
	d, _ := contract.Scaled(5 * time.Second)
	return d
}
