package proctable

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A Mach-O executable as the test lays it out: what the program runs (text, data), what is never
// loaded (dwarf) and the code signature (sig), which re-signing rewrites with its load command.
type machoParts struct {
	cpu              uint32
	text, data, sig  []byte
	dwarf            []byte // none: no __DWARF segment (stripped)
	uuid             [16]byte
	textAt, linkedAt uint32 // file offsets of __TEXT,__text and of __LINKEDIT
}

// machO lays out a 64-bit MH_EXECUTE (XNU EXTERNAL_HEADERS/mach-o/loader.h): __PAGEZERO;
// __TEXT from offset 0 (header and load commands included, as ld lays it out) with __text;
// __DATA with __data and a zero-fill __bss whose offset is 0; __DWARF with __debug_info; and
// __LINKEDIT holding the code signature that LC_CODE_SIGNATURE names; then LC_UUID.
func machO(p machoParts) []byte {
	le := binary.LittleEndian
	var cmds bytes.Buffer
	ncmds := 0
	section := func(name, seg string, size uint64, off, flags uint32) []byte {
		b := make([]byte, 80)
		copy(b[0:], name)
		copy(b[16:], seg)
		le.PutUint64(b[40:], size)
		le.PutUint32(b[48:], off)
		le.PutUint32(b[64:], flags)
		return b
	}
	segment := func(name string, fileoff, filesize uint64, sects ...[]byte) {
		b := make([]byte, 72)
		le.PutUint32(b[0:], 0x19) // LC_SEGMENT_64
		le.PutUint32(b[4:], uint32(72+80*len(sects)))
		copy(b[8:], name)
		le.PutUint64(b[32:], 0x1000) // vmsize
		le.PutUint64(b[40:], fileoff)
		le.PutUint64(b[48:], filesize)
		le.PutUint32(b[64:], uint32(len(sects)))
		cmds.Write(b)
		for _, s := range sects {
			cmds.Write(s)
		}
		ncmds++
	}
	dataAt := p.textAt + uint32(len(p.text))
	dwarfAt := dataAt + uint32(len(p.data))
	segment("__PAGEZERO", 0, 0)
	segment("__TEXT", 0, uint64(dataAt), section("__text", "__TEXT", uint64(len(p.text)), p.textAt, 0x80000400))
	segment("__DATA", uint64(dataAt), uint64(len(p.data)),
		section("__data", "__DATA", uint64(len(p.data)), dataAt, 0), section("__bss", "__DATA", 64, 0, 0x1))
	if p.dwarf != nil {
		segment("__DWARF", uint64(dwarfAt), uint64(len(p.dwarf)), section("__debug_info", "__DWARF", uint64(len(p.dwarf)), dwarfAt, 0x02000000))
	}
	segment("__LINKEDIT", uint64(p.linkedAt), uint64(len(p.sig)))
	uuid := make([]byte, 24)
	le.PutUint32(uuid[0:], 0x1b) // LC_UUID
	le.PutUint32(uuid[4:], 24)
	copy(uuid[8:], p.uuid[:])
	cmds.Write(uuid)
	sig := make([]byte, 16)
	le.PutUint32(sig[0:], 0x1d) // LC_CODE_SIGNATURE
	le.PutUint32(sig[4:], 16)
	le.PutUint32(sig[8:], p.linkedAt)
	le.PutUint32(sig[12:], uint32(len(p.sig)))
	cmds.Write(sig)
	ncmds += 2
	out := make([]byte, int(p.linkedAt)+len(p.sig))
	le.PutUint32(out[0:], 0xfeedfacf) // MH_MAGIC_64
	le.PutUint32(out[4:], p.cpu)
	le.PutUint32(out[12:], 2) // MH_EXECUTE
	le.PutUint32(out[16:], uint32(ncmds))
	le.PutUint32(out[20:], uint32(cmds.Len()))
	copy(out[32:], cmds.Bytes())
	copy(out[p.textAt:], p.text)
	copy(out[dataAt:], p.data)
	copy(out[dwarfAt:], p.dwarf)
	copy(out[p.linkedAt:], p.sig)
	return out
}

// fat lays out a universal file as lipo does (mach-o/fat.h: big-endian fat_header and fat_arch),
// each slice whole at a 4096-byte boundary.
func fat(slices ...[]byte) []byte {
	be := binary.BigEndian
	head := make([]byte, 8+20*len(slices))
	be.PutUint32(head[0:], 0xcafebabe)
	be.PutUint32(head[4:], uint32(len(slices)))
	out := head
	for i, s := range slices {
		for len(out)%4096 != 0 {
			out = append(out, 0)
		}
		a := head[8+20*i:]
		be.PutUint32(a[0:], binary.LittleEndian.Uint32(s[4:])) // cputype, from the slice's header
		be.PutUint32(a[8:], uint32(len(out)))
		be.PutUint32(a[12:], uint32(len(s)))
		be.PutUint32(a[16:], 12)
		out = append(out, s...)
	}
	copy(out, head)
	return out
}

const (
	cpuArm64 = 0x0100000c
	cpuAmd64 = 0x01000007
)

func harnessParts() machoParts {
	return machoParts{cpu: cpuArm64, text: bytes.Repeat([]byte("code"), 64), data: []byte("initial data"),
		dwarf: []byte("debug info"), sig: bytes.Repeat([]byte{0xfa}, 96), uuid: [16]byte{1, 2, 3},
		textAt: 0x400, linkedAt: 0x800}
}

// imagesAt is imagesOfFile of the bytes b, written to a file of their own.
func imagesAt(t *testing.T, name string, b []byte) []Image {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ims, err := imagesOfFile(f, func(int64) bool { return true })
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return ims
}

// A Mach-O harness is known by the code it runs: a copy re-signed (a new signature of another
// size, so new load commands in __TEXT's first bytes and a new __LINKEDIT), stripped of its
// __DWARF, or made a slice of a universal file (lipo) is the harness; a copy with one byte of
// code or data changed is not, whatever its LC_UUID says (issue 67).
func TestAMachOImageIsItsCodeNotItsSignature(t *testing.T) {
	p := harnessParts()
	harness := imagesAt(t, "harness", machO(p))
	if len(harness) != 1 || harness[0].Size != int64(len(p.text)+len(p.data)) {
		t.Fatalf("the harness's image %+v, want one of %d bytes (__text and __data)", harness, len(p.text)+len(p.data))
	}
	im := harness[0]
	resigned := p
	resigned.sig = bytes.Repeat([]byte{0x5e}, 160)
	stripped := p
	stripped.dwarf = nil
	other := harnessParts()
	other.cpu, other.text = cpuAmd64, bytes.Repeat([]byte("x86!"), 80)
	patched, patchedData := harnessParts(), harnessParts()
	patched.text = append(bytes.Repeat([]byte("code"), 63), []byte("cod!")...)
	patchedData.data = []byte("initial dat!")
	for _, c := range []struct {
		name string
		b    []byte
		want bool
	}{
		{"re-signed", machO(resigned), true},
		{"stripped of __DWARF", machO(stripped), true},
		{"universal, the harness as its arm64 slice", fat(machO(other), machO(p)), true},
		{"universal, re-signed", fat(machO(resigned), machO(other)), true},
		{"one byte of __text changed", machO(patched), false},
		{"one byte of __data changed", machO(patchedData), false},
		{"universal without the harness", fat(machO(other), machO(patched)), false},
	} {
		if got := slices.Contains(imagesAt(t, "copy", c.b), im); got != c.want {
			t.Errorf("%s: runs the harness's image %v, want %v", c.name, got, c.want)
		}
	}
}
