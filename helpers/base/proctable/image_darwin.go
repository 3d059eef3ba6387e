package proctable

import (
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

// runBy hands check the size of pid's executable and a way to open it, by the path the kernel
// gives (proc_pidpath): macOS has no link to the file itself. The file is opened once and its size
// read from that open file, so a path swapped in between is read as what it is then.
func runBy(pid int, check func(size int64, open func() (*os.File, error)) (bool, error)) (bool, error) {
	path, err := Exe(pid)
	if err != nil {
		return false, err
	}
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false, err
	}
	return check(st.Size(), func() (*os.File, error) {
		fd, err := syscall.Dup(int(f.Fd())) // the file whose size was read, not the path again
		if err != nil {
			return nil, err
		}
		return os.NewFile(uintptr(fd), path), nil
	})
}
