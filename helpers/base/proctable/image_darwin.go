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
	return fileKey{dev: uint64(st.Dev), ino: st.Ino, size: st.Size, mtime: st.Mtimespec, ctime: st.Ctimespec}, nil
}

// runBy hands check pid's executable, opened by the path the kernel gives (proc_pidpath): macOS
// has no link to the file itself. Opened without following a symlink and without blocking (a FIFO
// swapped in at that path would hang an open for reading), and only a regular file is read. A
// path swapped between exec and this open is read as what it is now: see docs/containment.md.
func runBy(pid int, check func(f *os.File) (bool, error)) (bool, error) {
	path, err := Exe(pid)
	if err != nil {
		return false, err
	}
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false, fmt.Errorf("opening %s: %w", path, err)
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false, err
	}
	if !st.Mode().IsRegular() {
		return false, fmt.Errorf("%s, the executable of pid %d, is no regular file now (%v)", path, pid, st.Mode().Type())
	}
	return check(f)
}

// LoadedBy is never on macOS: dyld is not run as a program that loads another.
func (im Image) LoadedBy(pid int, argsOf func(pid int) ([]string, error)) ([]string, bool, error) {
	return nil, false, nil
}
