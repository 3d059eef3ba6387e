//go:build !linux

package actas

import (
	"fmt"
	"runtime"
	"time"
)

// do: only Linux gives a thread an identity of its own here; a kit elsewhere never runs its
// launcher as another user (identity.Launcher keeps the kit's own on macOS).
func do(uid, gid int, fn func() error) error {
	return fmt.Errorf("acting as uid %d gid %d: not supported on %s", uid, gid, runtime.GOOS)
}

// Child: only a root kit on Linux acts as another user.
func Child(uid, gid int, bound time.Duration, op string, args ...string) ([]string, error) {
	return nil, fmt.Errorf("acting as uid %d gid %d in a process of its own: not supported on %s", uid, gid, runtime.GOOS)
}
