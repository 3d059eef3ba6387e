package proctable

import (
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
)

// Image is an executable's code as the kernel loads it: the bytes of its loadable segments (ELF
// PT_LOAD, Mach-O segments; the whole file for anything else, a script) and their sha256. The
// harness is what runs the harness's code, whatever path, inode or memfd it was started from, and
// whatever trails its segments: a copy of the kit's harness binary, padded or stripped of what is
// never loaded, is a harness too, and a launcher that runs one beside a decoy must not pass for
// having started one.
type Image struct {
	Size int64 // the loaded bytes
	Sum  [sha256.Size]byte
}

// ImageOf is the image of the executable at path (the kit's own harness binary).
func ImageOf(path string) (Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return Image{}, err
	}
	defer f.Close()
	return imageOfFile(f, func(int64) bool { return true })
}

// fileKey names a file's content while it is unchanged: a write moves ctime, which no call can set
// back (utimes sets mtime and atime only).
type fileKey struct {
	dev, ino     uint64
	size         int64
	mtime, ctime syscall.Timespec
}

// MaxImage bounds the loaded bytes the kit hashes of one executable.
const MaxImage = 512 << 20

var (
	imagesMu sync.Mutex
	images   = map[fileKey]Image{} // Sum zero: laid out, not hashed yet
)

// imageOfFile reads f's image, once per fileKey: every observation of a spec asks this of each
// candidate process, and most run one of a few executables. want says, from the loaded size
// alone, whether the sum is worth reading (most executables are not the harness).
func imageOfFile(f *os.File, want func(size int64) bool) (Image, error) {
	key, err := keyOf(f)
	if err != nil {
		return Image{}, err
	}
	imagesMu.Lock()
	im, ok := images[key]
	imagesMu.Unlock()
	if ok && (im.Sum != [sha256.Size]byte{} || !want(im.Size)) {
		return im, nil
	}
	segs, err := segments(io.NewSectionReader(f, 0, key.size))
	if err != nil {
		return Image{}, fmt.Errorf("reading %s: %w", f.Name(), err)
	}
	for _, sg := range segs {
		im.Size += sg.Size()
	}
	if im.Size > MaxImage {
		return Image{}, fmt.Errorf("%s: %d loaded bytes, more than the %d the kit reads", f.Name(), im.Size, MaxImage)
	}
	if want(im.Size) {
		h := sha256.New()
		for _, sg := range segs {
			if _, err := io.Copy(h, sg); err != nil {
				return Image{}, fmt.Errorf("reading %s: %w", f.Name(), err)
			}
		}
		copy(im.Sum[:], h.Sum(nil))
	}
	imagesMu.Lock()
	if len(images) > 4096 { // a bound on what a launcher's many executables can make the kit keep
		clear(images)
	}
	images[key] = im
	imagesMu.Unlock()
	return im, nil
}

// segments are the parts of an executable the kernel loads: ELF's PT_LOAD segments, a thin
// Mach-O's segments, else the whole file.
func segments(r *io.SectionReader) ([]*io.SectionReader, error) {
	var segs []*io.SectionReader
	if e, err := elf.NewFile(r); err == nil {
		for _, p := range e.Progs {
			if p.Type == elf.PT_LOAD && p.Filesz > 0 {
				segs = append(segs, io.NewSectionReader(r, int64(p.Off), int64(p.Filesz)))
			}
		}
		return segs, nil
	}
	if m, err := macho.NewFile(r); err == nil {
		for _, l := range m.Loads {
			if sg, ok := l.(*macho.Segment); ok && sg.Filesz > 0 {
				segs = append(segs, io.NewSectionReader(r, int64(sg.Offset), int64(sg.Filesz)))
			}
		}
		return segs, nil
	}
	return []*io.SectionReader{r}, nil
}

// RunBy says whether pid runs this image, read from the kernel's own link to its executable
// (never a path the launcher can change, on Linux). An error means the kit cannot tell: the
// process is gone, or its executable cannot be read (a copy made unreadable is not taken for a
// stranger).
func (im Image) RunBy(pid int) (bool, error) {
	return runBy(pid, func(f *os.File) (bool, error) {
		got, err := imageOfFile(f, func(size int64) bool { return size == im.Size })
		return err == nil && got == im, err
	})
}
