package proctable

import (
	"encoding/binary"
	"os"
	"path/filepath"
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
// refused once the parse has read maxHeaders of it, naming the file, and never read whole.
func TestAnExecutableWhoseHeadersClaimTooMuchIsRefused(t *testing.T) {
	const claimed = 200 << 20
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
	le.PutUint32(sh[4:], 3)        // sh_type: SHT_STRTAB
	le.PutUint64(sh[24:], 4096)    // sh_offset
	le.PutUint64(sh[32:], claimed) // sh_size
	le.PutUint64(sh[48:], 1)       // sh_addralign
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
	_, err = imagesOfFile(f, func(int64) bool { return true })
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "more than") {
		t.Fatalf("an ELF claiming a %d-byte section-name table: %v; want a refusal naming %s and the bound", claimed, err, path)
	}
}
