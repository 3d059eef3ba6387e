package proctable

import (
	"crypto/sha256"
	"debug/macho"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sync"
	"syscall"
)

// Image is an executable's code as the kernel loads it: the bytes of its loadable segments (ELF
// PT_LOAD, read from the program headers as the kernel reads them, with the header's section-table
// fields, which it ignores, read as zeros: elfLoads; for Mach-O the contents of its sections,
// below) and their sha256; the whole file for anything else (a script). The harness is what runs the harness's code, whatever path, inode or
// memfd it was started from, and whatever trails its segments: a copy of the kit's harness binary,
// padded or stripped of what is never loaded, is a harness too, and a launcher that runs one beside
// a decoy must not pass for having started one.
//
// A Mach-O's image is the contents of every section with bytes in the file, in load-command order,
// except those of __LINKEDIT (the symbol tables and the code signature) and __DWARF (debug
// information, never loaded): the code (__TEXT), the constants (__DATA_CONST) and the initial
// data (__DATA) the program runs. Not its segments' file ranges: __TEXT's begins at offset 0 and
// holds the header and load commands, which re-signing rewrites (LC_CODE_SIGNATURE's size,
// __LINKEDIT's file size), so `codesign -f -s -` or `strip` of a copy left no harness. Not LC_UUID
// alone: it is a claim a file makes, where the sections are what runs. A universal (fat) file is
// one image per architecture slice (lipo copies each slice's bytes whole): it runs the harness
// when one of its slices is the harness (imagesOfFile).
type Image struct {
	Size int64 // the loaded bytes
	Sum  [sha256.Size]byte
}

// ImageOf is the image of the executable at path (the kit's own harness binary); of a universal
// file, the slice this architecture runs.
func ImageOf(path string) (Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return Image{}, err
	}
	defer f.Close()
	ims, err := imagesOfFile(f, func(int64) bool { return true })
	if err != nil {
		return Image{}, err
	}
	if len(ims) == 1 {
		return ims[0], nil
	}
	for i, c := range sliceCPUs(f) {
		if c == hostCPU {
			return ims[i], nil
		}
	}
	return Image{}, fmt.Errorf("%s: a universal file with no %s slice", path, runtime.GOARCH)
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
	images   = map[fileKey][]Image{} // Sum zero: laid out, not hashed yet
)

// runs says whether the executable f holds im (one of its slices is im).
func (im Image) runs(f *os.File) (bool, error) {
	got, err := imagesOfFile(f, func(size int64) bool { return size == im.Size })
	return err == nil && slices.Contains(got, im), err
}

// imagesOfFile reads f's images (one, or one per slice of a universal file), once per fileKey:
// every observation of a spec asks this of each candidate process, and most run one of a few
// executables. want says, from an image's loaded size alone, whether its sum is worth reading
// (most executables are not the harness).
func imagesOfFile(f *os.File, want func(size int64) bool) ([]Image, error) {
	key, err := keyOf(f)
	if err != nil {
		return nil, err
	}
	imagesMu.Lock()
	had, ok := images[key]
	imagesMu.Unlock()
	if ok && !slices.ContainsFunc(had, func(im Image) bool { return im.Sum == [sha256.Size]byte{} && want(im.Size) }) {
		return had, nil
	}
	parts, err := parsed(f.Name(), func() ([][]*io.SectionReader, error) { return segments(io.NewSectionReader(f, 0, key.size)) })
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", f.Name(), err)
	}
	ims := make([]Image, len(parts))
	for i, segs := range parts {
		if i < len(had) && had[i].Sum != [sha256.Size]byte{} {
			ims[i] = had[i] // hashed already
			continue
		}
		if ims[i], err = imageOf(segs, want); err != nil {
			return nil, fmt.Errorf("reading %s: %w", f.Name(), err)
		}
	}
	imagesMu.Lock()
	if len(images) > 4096 { // a bound on what a launcher's many executables can make the kit keep
		clear(images)
	}
	images[key] = ims
	imagesMu.Unlock()
	return ims, nil
}

// imageOf is the image of one slice's segments, its sum read only where want says.
func imageOf(segs []*io.SectionReader, want func(size int64) bool) (Image, error) {
	var im Image
	for _, sg := range segs {
		im.Size += sg.Size()
	}
	if im.Size > MaxImage {
		return Image{}, fmt.Errorf("%d loaded bytes, more than the %d the kit reads", im.Size, MaxImage)
	}
	if want(im.Size) {
		h := sha256.New()
		for _, sg := range segs {
			if _, err := io.Copy(h, sg); err != nil {
				return Image{}, err
			}
		}
		copy(im.Sum[:], h.Sum(nil))
	}
	return im, nil
}

// segments are the parts of an executable the kernel loads, per image: ELF's PT_LOAD segments
// (elfLoads); a Mach-O's section contents (see Image), one list per slice of a universal file;
// else the whole file. A file is an ELF or a Mach-O by its magic, as the kernel knows it: one with
// that magic the kit cannot parse is an error (it cannot tell what runs), never read as a raw file,
// which would make a copy of the harness with a broken header "not the harness". The Mach-O
// headers are parsed through a budget (maxHeaders): a header that claims gigabytes costs a
// launcher nothing (a sparse file), and fails the parse, not the kit's memory.
func segments(r *io.SectionReader) ([][]*io.SectionReader, error) {
	var magic [8]byte
	n, _ := r.ReadAt(magic[:], 0)
	be, le := binary.BigEndian.Uint32(magic[:]), binary.LittleEndian.Uint32(magic[:])
	switch {
	case n >= 4 && string(magic[:4]) == elfMagic:
		segs, err := elfLoads(r)
		if err != nil {
			return nil, fmt.Errorf("an ELF the kit cannot read: %w", err)
		}
		return [][]*io.SectionReader{segs}, nil
	case n >= 4 && (le == macho.Magic32 || le == macho.Magic64 || be == macho.Magic32 || be == macho.Magic64):
		hr := &budget{r: r}
		hr.left.Store(maxHeaders)
		m, err := macho.NewFile(hr)
		if err == nil {
			err = hr.spent()
		}
		if err != nil {
			return nil, fmt.Errorf("a Mach-O the kit cannot read: %w", err)
		}
		return [][]*io.SectionReader{machoSections(r, m)}, nil
	case n == 8 && (be == macho.MagicFat || be == magicFat64) && binary.BigEndian.Uint32(magic[4:]) < 45:
		// 0xcafebabe opens a Java class file too, whose next word (minor, major version) is 45
		// or more; a universal file's next word is its count of slices, a handful.
		hr := &budget{r: r}
		hr.left.Store(maxHeaders)
		ff, err := macho.NewFatFile(hr)
		if err == nil {
			err = hr.spent()
		}
		if err != nil {
			return nil, fmt.Errorf("a universal Mach-O the kit cannot read: %w", err)
		}
		var out [][]*io.SectionReader
		for _, a := range ff.Arches {
			out = append(out, machoSections(io.NewSectionReader(r, int64(a.Offset), int64(a.Size)), a.File))
		}
		return out, nil
	}
	return [][]*io.SectionReader{{r}}, nil
}

// magicFat64 opens a universal file with 64-bit offsets (FAT_MAGIC_64, XNU mach-o/fat.h), which
// debug/macho does not read: such a file is an error, not a raw file.
const magicFat64 = 0xcafebabf

// machoSections are the contents of m's sections that identify the program (see Image), read
// from r, the slice m was parsed from: every section with bytes in the file but those of
// __LINKEDIT and __DWARF. A zero-fill section (__bss, __common: S_ZEROFILL, S_GB_ZEROFILL,
// S_THREAD_LOCAL_ZEROFILL in the low byte of its flags, XNU EXTERNAL_HEADERS/mach-o/loader.h) has
// no bytes in the file, whatever its offset says.
func machoSections(r *io.SectionReader, m *macho.File) []*io.SectionReader {
	var out []*io.SectionReader
	for _, sec := range m.Sections {
		switch sec.Flags & 0xff {
		case 0x1, 0xc, 0x12:
			continue
		}
		if sec.Seg == "__LINKEDIT" || sec.Seg == "__DWARF" || sec.Size == 0 {
			continue
		}
		out = append(out, io.NewSectionReader(r, int64(sec.Offset), int64(sec.Size)))
	}
	return out
}

// sliceCPUs are the architectures of a universal file's slices, in order; none for another file.
func sliceCPUs(f *os.File) []macho.Cpu {
	ff, err := parsed(f.Name(), func() (*macho.FatFile, error) { return macho.NewFatFile(f) })
	if err != nil {
		return nil
	}
	var out []macho.Cpu
	for _, a := range ff.Arches {
		out = append(out, a.Cpu)
	}
	return out
}

// hostCPU is the Mach-O architecture this process runs as.
var hostCPU = map[string]macho.Cpu{"arm64": macho.CpuArm64, "amd64": macho.CpuAmd64}[runtime.GOARCH]

// RunBy says whether pid runs this image, read from the kernel's own link to its executable
// (never a path the launcher can change, on Linux). An error means the kit cannot tell: the
// process is gone, or its executable cannot be read (a copy made unreadable is not taken for a
// stranger).
func (im Image) RunBy(pid int) (bool, error) {
	return runBy(pid, im.runs)
}
