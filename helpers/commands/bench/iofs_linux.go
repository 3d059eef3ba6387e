package bench

import (
	"fmt"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// describeDir names the filesystem a folder is on and its block device's scheduler, from the
// device number: /sys/dev/block/MAJ:MIN/queue/scheduler, or its parent's for a partition.
func describeDir(dir string) (string, string) {
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return dir, "unknown"
	}
	var sfs unix.Statfs_t
	kind := "a filesystem"
	if unix.Statfs(dir, &sfs) == nil {
		kind = fmt.Sprintf("filesystem type 0x%x", sfs.Type)
	}
	maj, min := unix.Major(st.Dev), unix.Minor(st.Dev)
	base := fmt.Sprintf("/sys/dev/block/%d:%d", maj, min)
	s := readScheduler(filepath.Join(base, "queue", "scheduler"))
	if s == "unknown" {
		s = readScheduler(filepath.Join(base, "..", "queue", "scheduler"))
	}
	return fmt.Sprintf("%s on device %d:%d (%s)", dir, maj, min, kind), s
}
