package readonly

import (
	"fmt"

	"golang.org/x/sys/unix"
)

func bindReadOnly(dir string) (func() error, error) {
	if err := unix.Mount(dir, dir, "", unix.MS_BIND, ""); err != nil {
		return nil, fmt.Errorf("running as root, so chmod would not stop writes; bind-mounting %s read-only failed: %w", dir, err)
	}
	if err := unix.Mount("", dir, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY, ""); err != nil {
		_ = unix.Unmount(dir, 0)
		return nil, fmt.Errorf("remounting %s read-only: %w", dir, err)
	}
	return func() error { return unix.Unmount(dir, unix.MNT_DETACH) }, nil
}
