package proc

import (
	"errors"
	"time"
)

// ErrDeadline is what Until returns when its deadline passed first.
var ErrDeadline = errors.New("deadline passed")

// Until is the kit's one retry loop: it calls check every interval until check says done or
// fails, or the deadline passes (ErrDeadline). No fixed sleep decides anything; each wait is
// bounded.
func Until(deadline time.Time, interval time.Duration, check func() (done bool, err error)) error {
	for {
		done, err := check()
		if done || err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return ErrDeadline
		}
		time.Sleep(interval)
	}
}
