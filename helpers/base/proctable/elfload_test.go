package proctable

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"
)

// elf32 is a 32-bit ELF in order bo: its header, one program header at 52 (PT_LOAD of the first
// 0x80 bytes, the header included), and code bytes to 0x100.
func elf32(bo binary.ByteOrder, data byte) []byte {
	b := make([]byte, 0x100)
	copy(b, "\x7fELF\x01")
	b[5] = 1
	if bo == binary.ByteOrder(binary.BigEndian) {
		b[5] = 2
	}
	bo.PutUint32(b[28:], 52)      // e_phoff
	bo.PutUint16(b[42:], 32)      // e_phentsize
	bo.PutUint16(b[44:], 1)       // e_phnum
	bo.PutUint32(b[52:], 1)       // p_type: PT_LOAD
	bo.PutUint32(b[52+4:], 0)     // p_offset
	bo.PutUint32(b[52+16:], 0x80) // p_filesz
	for i := 84; i < len(b); i++ {
		b[i] = data
	}
	return b
}

// A 32-bit ELF of either byte order is read from its program headers as a 64-bit one is: its
// PT_LOAD bytes, with e_shoff, e_shentsize, e_shnum and e_shstrndx read as zeros; a loaded byte
// changed is another image, a byte past the segment is not.
func TestA32BitELFIsReadFromItsProgramHeaders(t *testing.T) {
	for _, bo := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		loaded := func(b []byte) []byte {
			segs, err := elfLoads(io.NewSectionReader(bytes.NewReader(b), 0, int64(len(b))))
			if err != nil || len(segs) != 1 {
				t.Fatalf("%v: %d segments, %v; want 1, no error", bo, len(segs), err)
			}
			out, _ := io.ReadAll(segs[0])
			return out
		}
		base := loaded(elf32(bo, 7))
		if len(base) != 0x80 {
			t.Errorf("%v: %d loaded bytes; want 128", bo, len(base))
		}
		sh := elf32(bo, 7)
		bo.PutUint32(sh[32:], 1<<31) // e_shoff
		bo.PutUint16(sh[48:], 999)   // e_shnum
		past := elf32(bo, 7)
		past[0xf0] = 9
		if !bytes.Equal(loaded(sh), base) || !bytes.Equal(loaded(past), base) {
			t.Errorf("%v: a section table moved, or a byte past the segment changed, reads as another image", bo)
		}
		if bytes.Equal(loaded(elf32(bo, 8)), base) {
			t.Errorf("%v: a loaded byte changed reads as the same image", bo)
		}
	}
}
