package proctable

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
)

// Image is an executable's content: its size and sha256. The harness is what runs the harness's
// code, whatever path, inode or memfd it was started from: a copy of the kit's harness binary is a
// harness too, and a launcher that runs one beside a decoy must not pass for having started one.
type Image struct {
	Size int64
	Sum  [sha256.Size]byte
}

// ImageOf is the content of the executable at path (the kit's own harness binary).
func ImageOf(path string) (Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return Image{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Image{}, err
	}
	return imageOfFile(f, st.Size())
}

// fileKey names a file's content while it is unchanged: a write moves ctime, which no call can set
// back (utimes sets mtime and atime only).
type fileKey struct {
	dev, ino     uint64
	size         int64
	mtime, ctime syscall.Timespec
}

var (
	sumsMu sync.Mutex
	sums   = map[fileKey][sha256.Size]byte{}
)

// imageOfFile hashes an open file of size bytes, once per fileKey: every observation of a spec
// asks this of each candidate process, and most run one of a few executables.
func imageOfFile(f *os.File, size int64) (Image, error) {
	key, err := keyOf(f)
	if err != nil {
		return Image{}, err
	}
	if key.size != size {
		return Image{}, fmt.Errorf("%s changed size while read (%d, then %d bytes)", f.Name(), size, key.size)
	}
	sumsMu.Lock()
	sum, ok := sums[key]
	sumsMu.Unlock()
	if ok {
		return Image{Size: size, Sum: sum}, nil
	}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, size+1)) // bounded: no more than the size fstat gave
	if err != nil {
		return Image{}, fmt.Errorf("reading %s: %w", f.Name(), err)
	}
	if n != size {
		return Image{}, fmt.Errorf("%s: read %d bytes of %d", f.Name(), n, size)
	}
	copy(sum[:], h.Sum(nil))
	sumsMu.Lock()
	if len(sums) > 4096 { // a bound on what a launcher's many executables can make the kit keep
		clear(sums)
	}
	sums[key] = sum
	sumsMu.Unlock()
	return Image{Size: size, Sum: sum}, nil
}

// RunBy says whether pid's executable has this content, read from the kernel's own link to it
// (never a path the launcher can change). An error means the kit cannot tell: the process is gone,
// or its executable cannot be read (a copy made unreadable is not taken for a stranger).
func (im Image) RunBy(pid int) (bool, error) {
	return runBy(pid, func(size int64, open func() (*os.File, error)) (bool, error) {
		if size != im.Size {
			return false, nil // most processes: no read at all
		}
		f, err := open()
		if err != nil {
			return false, err
		}
		defer f.Close()
		got, err := imageOfFile(f, size)
		if err != nil {
			return false, err
		}
		return got == im, nil
	})
}
