package identity

import (
	"time"

	"github.com/classproof/classproof/helpers/base/contract"
)

// sweepBound bounds a sweep's work as a run's uid: a kill of all, a removal of every tree it left.
// The process of the uid's ids that does it (actas.Child) is that user's to stop or slow, so the
// kit kills it past this bound, scaled by the run's time scale (an invalid scale, which the run
// refused before it began, leaves it as it is).
func sweepBound() time.Duration {
	d, _ := contract.Scaled(time.Minute)
	return d
}
