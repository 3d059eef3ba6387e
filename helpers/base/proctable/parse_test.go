package proctable

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A parser that panics on a launcher's file (debug/elf and debug/macho are not hardened against
// hostile input: golang/go#70584, #47445, #56429) is an error that names the file, not a crash.
func TestAPanickingParserIsAnErrorNamingTheFile(t *testing.T) {
	_, err := parsed("/proc/4242/exe", func() (int, error) { panic("runtime error: index out of range [3] with length 0") })
	if err == nil || !strings.Contains(err.Error(), "/proc/4242/exe") || !strings.Contains(err.Error(), "index out of range") {
		t.Fatalf("a parser that panicked on /proc/4242/exe: %v; want an error naming the file and the panic", err)
	}
}

// An ELF whose section-name table claims 200 MiB (a sparse file: it costs its maker nothing) is
// read as the kernel reads it, from its program headers alone: its table is never read, and it
// loads nothing. One that claims more program headers than the kernel reads is refused, naming
// the file and the bound.
func TestAnExecutableWhoseHeadersClaimTooMuchIsRefused(t *testing.T) {
	const claimed = 200 << 20
	read := func(hdr []byte) ([]Image, error) {
		path := filepath.Join(t.TempDir(), "launcher-made")
		if err := os.WriteFile(path, hdr, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, 4096+claimed); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		ims, err := imagesOfFile(f, func(int64) bool { return true })
		if err != nil && !strings.Contains(err.Error(), path) {
			t.Errorf("reading %s: %v, which does not name it", path, err)
		}
		return ims, err
	}
	if ims, err := read(elfClaiming(claimed)); err != nil || len(ims) != 1 || ims[0].Size != 0 {
		t.Errorf("an ELF with no program headers claiming a %d-byte section-name table: %v, %v; want one image of 0 loaded bytes, no error", claimed, ims, err)
	}
	many := elfClaiming(claimed)
	binary.LittleEndian.PutUint64(many[32:], 4096)   // e_phoff
	binary.LittleEndian.PutUint16(many[56:], 0xffff) // e_phnum: 3.6 MB of program headers
	if _, err := read(many); err == nil || !strings.Contains(err.Error(), "65536") {
		t.Errorf("an ELF claiming 65535 program headers: %v; want a refusal naming the bound of 65536 bytes", err)
	}
}

// elfClaiming is the header of an ELF64 file with two sections, the second its section-name
// table of size bytes at offset 4096.
func elfClaiming(size uint64) []byte {
	hdr := make([]byte, 64+2*64)
	copy(hdr, "\x7fELF\x02\x01\x01")
	le := binary.LittleEndian
	le.PutUint16(hdr[16:], 2)  // e_type: ET_EXEC
	le.PutUint16(hdr[18:], 62) // e_machine: x86-64
	le.PutUint32(hdr[20:], 1)  // e_version
	le.PutUint64(hdr[40:], 64) // e_shoff
	le.PutUint16(hdr[52:], 64) // e_ehsize
	le.PutUint16(hdr[54:], 56) // e_phentsize
	le.PutUint16(hdr[58:], 64) // e_shentsize
	le.PutUint16(hdr[60:], 2)  // e_shnum
	le.PutUint16(hdr[62:], 1)  // e_shstrndx
	sh := hdr[128:]
	le.PutUint32(sh[4:], 3)     // sh_type: SHT_STRTAB
	le.PutUint64(sh[24:], 4096) // sh_offset
	le.PutUint64(sh[32:], size) // sh_size
	le.PutUint64(sh[48:], 1)    // sh_addralign
	return hdr
}

// FuzzImagesOfAnyFile: whatever bytes a launcher's executable holds, reading its image returns,
// an image or an error that names the file; a panic never leaves the parse.
func FuzzImagesOfAnyFile(f *testing.F) {
	f.Add(elfClaiming(64))
	f.Add([]byte("#!/bin/sh\nexec sleep 60\n"))
	f.Add([]byte("\xcf\xfa\xed\xfe\x07\x00\x00\x01\x03\x00\x00\x00\x02\x00\x00\x00\x01\x00\x00\x00\xff\xff\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Add([]byte("\xca\xfe\xba\xbe\x00\x00\x00\x02\x01\x00\x00\x07\x00\x00\x00\x03\x00\x00\x10\x00"))
	dir := f.TempDir()
	n := 0
	f.Fuzz(func(t *testing.T, data []byte) {
		n++
		path := filepath.Join(dir, strconv.Itoa(n))
		if err := os.WriteFile(path, data, 0o755); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(path)
		fh, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		if _, err := imagesOfFile(fh, func(int64) bool { return true }); err != nil && !strings.Contains(err.Error(), path) {
			t.Fatalf("reading %q: %v, which does not name %s", data, err, path)
		}
	})
}
