package proctable

import (
	"fmt"
	"os"
	"syscall"
)

func keyOf(f *os.File) (fileKey, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return fileKey{}, err
	}
	return fileKey{dev: st.Dev, ino: st.Ino, size: st.Size, mtime: st.Mtim, ctime: st.Ctim}, nil
}

// runBy hands check the size of pid's executable and a way to open it, both through
// /proc/PID/exe, the kernel's link to the file the process runs (a memfd, a deleted copy), read
// with the launcher's rights (asOwner).
func runBy(pid int, check func(size int64, open func() (*os.File, error)) (bool, error)) (ok bool, err error) {
	exe := fmt.Sprintf("/proc/%d/exe", pid)
	err = asOwner(pid, func() error {
		st, err := os.Stat(exe)
		if err != nil {
			return err
		}
		ok, err = check(st.Size(), func() (*os.File, error) { return os.Open(exe) })
		return err
	})
	return ok, err
}
