package proctable

import (
	"encoding/binary"
	"fmt"
	"io"
)

// elfMagic opens every ELF file (e_ident[EI_MAG0..3]).
const elfMagic = "\x7fELF"

// maxProgHeaders is the most program-header bytes the kernel reads to run an ELF (Linux
// fs/binfmt_elf.c, load_elf_phdrs: 65536), and so the most this parser reads.
const maxProgHeaders = 65536

// elfLoads are the file ranges of an ELF's PT_LOAD segments with bytes in the file, read as the
// kernel reads them to run it: from the ELF header and the program headers only. The section
// headers, which Go's debug/elf insists on and the kernel never reads, play no part, so a copy of
// the harness whose section table is broken or points past its end is still the harness. An ELF
// whose program headers cannot be read, or whose segments lie past its end, is an error: the kit
// cannot tell what it runs. One with no program headers (an object file, never run) loads nothing.
func elfLoads(r *io.SectionReader) ([]*io.SectionReader, error) {
	h, err := elfProgHeaders(r)
	if err != nil || h.ph == nil {
		return nil, err
	}
	// The loaded bytes are read with the section-table fields of the ELF header zeroed (the
	// first PT_LOAD holds the header): the kernel ignores them, so a copy of the harness that
	// points them elsewhere runs the same code and is the same image.
	masked := io.NewSectionReader(&shMasked{r: r, class: h.class}, 0, r.Size())
	var segs []*io.SectionReader
	for i := range len(h.ph) / h.entsize {
		p := h.ph[i*h.entsize:]
		if h.bo.Uint32(p) != 1 { // p_type PT_LOAD
			continue
		}
		var off, filesz uint64
		if h.class == 1 {
			off, filesz = uint64(h.bo.Uint32(p[4:])), uint64(h.bo.Uint32(p[16:]))
		} else {
			off, filesz = h.bo.Uint64(p[8:]), h.bo.Uint64(p[32:])
		}
		if filesz == 0 {
			continue
		}
		if off > uint64(r.Size()) || filesz > uint64(r.Size())-off {
			return nil, fmt.Errorf("PT_LOAD segment %d at %d, %d bytes, past the file's end (%d bytes)", i, off, filesz, r.Size())
		}
		segs = append(segs, io.NewSectionReader(masked, int64(off), int64(filesz)))
	}
	return segs, nil
}

// progHeaders is what elfProgHeaders read: the class (1: 32-bit, 2: 64-bit), the byte order, and
// the program headers' bytes (nil for a file with none), entsize bytes each.
type progHeaders struct {
	class   byte
	bo      binary.ByteOrder
	ph      []byte
	entsize int
}

// elfProgHeaders reads an ELF header and its program headers, bounded as the kernel bounds them.
func elfProgHeaders(r *io.SectionReader) (progHeaders, error) {
	var id [16]byte
	if _, err := r.ReadAt(id[:], 0); err != nil {
		return progHeaders{}, fmt.Errorf("an ELF header cut short: %w", err)
	}
	h := progHeaders{class: id[4]}
	switch id[5] { // EI_DATA
	case 1:
		h.bo = binary.LittleEndian
	case 2:
		h.bo = binary.BigEndian
	default:
		return h, fmt.Errorf("ELF data encoding %d: neither 1 (little-endian) nor 2 (big-endian)", id[5])
	}
	// Where e_phoff, e_phentsize and e_phnum sit, and one program header's size, per class.
	var phoff uint64
	var phentsize, phnum, want uint16
	var hdr [64]byte
	switch h.class { // EI_CLASS
	case 1:
		if _, err := r.ReadAt(hdr[:52], 0); err != nil {
			return h, fmt.Errorf("a 32-bit ELF header cut short: %w", err)
		}
		phoff, phentsize, phnum, want = uint64(h.bo.Uint32(hdr[28:])), h.bo.Uint16(hdr[42:]), h.bo.Uint16(hdr[44:]), 32
	case 2:
		if _, err := r.ReadAt(hdr[:], 0); err != nil {
			return h, fmt.Errorf("a 64-bit ELF header cut short: %w", err)
		}
		phoff, phentsize, phnum, want = h.bo.Uint64(hdr[32:]), h.bo.Uint16(hdr[54:]), h.bo.Uint16(hdr[56:]), 56
	default:
		return h, fmt.Errorf("ELF class %d: neither 1 (32-bit) nor 2 (64-bit)", id[4])
	}
	if phnum == 0 {
		return h, nil
	}
	if phentsize != want {
		return h, fmt.Errorf("program headers of %d bytes each, not the %d of its class", phentsize, want)
	}
	size := int64(phnum) * int64(phentsize)
	if size > maxProgHeaders {
		return h, fmt.Errorf("%d program headers (%d bytes): more than the %d bytes the kernel reads", phnum, size, maxProgHeaders)
	}
	if phoff > uint64(r.Size()) || int64(phoff) > r.Size()-size {
		return h, fmt.Errorf("program headers at %d, %d bytes, past the file's end (%d bytes)", phoff, size, r.Size())
	}
	h.ph, h.entsize = make([]byte, size), int(phentsize)
	if _, err := r.ReadAt(h.ph, int64(phoff)); err != nil {
		return h, fmt.Errorf("reading program headers at %d: %w", phoff, err)
	}
	return h, nil
}

// shMasked reads an ELF with its header's section-table fields read as zeros: e_shoff,
// e_shentsize, e_shnum and e_shstrndx (ELF32 at 0x20 and 0x2e..0x34, ELF64 at 0x28 and
// 0x3a..0x40).
type shMasked struct {
	r     io.ReaderAt
	class byte
}

func (m *shMasked) ReadAt(p []byte, off int64) (int, error) {
	n, err := m.r.ReadAt(p, off)
	spans := [][2]int64{{0x28, 0x30}, {0x3a, 0x40}}
	if m.class == 1 {
		spans = [][2]int64{{0x20, 0x24}, {0x2e, 0x34}}
	}
	for _, s := range spans {
		for o := max(s[0], off); o < s[1] && o < off+int64(n); o++ {
			p[o-off] = 0
		}
	}
	return n, err
}
