//go:build !linux

package actas

import (
	"fmt"
	"runtime"
)

// do: only Linux gives a thread an identity of its own here; a kit elsewhere never runs its
// launcher as another user (sandbox.LauncherIdentity keeps the kit's own on macOS).
func do(uid, gid int, fn func() error) error {
	return fmt.Errorf("acting as uid %d gid %d: not supported on %s", uid, gid, runtime.GOOS)
}

func doAsProcess(uid, gid int, fn func() error) error { return do(uid, gid, fn) }
