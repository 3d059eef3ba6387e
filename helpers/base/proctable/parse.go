package proctable

import (
	"fmt"
	"io"
	"sync/atomic"
)

// parsed runs parse, a parser of a file a launcher may have made (debug/elf and debug/macho, which
// Go does not harden against hostile input), and makes a panic of it an error that names the
// file: a malformed executable is the launcher's, and never ends the kit.
func parsed[T any](name string, parse func() (T, error)) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			var zero T
			v, err = zero, fmt.Errorf("%s: its parser panicked (%v): a malformed file, not read", name, r)
		}
	}()
	return parse()
}

// maxHeaders bounds what a parse of one executable reads of its headers: the load commands and
// symbol tables of the largest real Mach-O, and an ELF's header tables, are far smaller.
const maxHeaders = 128 << 20

// budget is an io.ReaderAt that reads at most left bytes in all; past that, every read fails.
type budget struct {
	r    io.ReaderAt
	left atomic.Int64
	over atomic.Bool
}

func (b *budget) ReadAt(p []byte, off int64) (int, error) {
	if b.left.Add(-int64(len(p))) < 0 {
		b.over.Store(true)
		return 0, fmt.Errorf("headers of more than %d bytes", maxHeaders)
	}
	return b.r.ReadAt(p, off)
}

// spent is an error when the parse ran past the budget (and so may have been cut short).
func (b *budget) spent() error {
	if b.over.Load() {
		return fmt.Errorf("headers of more than %d bytes: more than the kit reads", maxHeaders)
	}
	return nil
}
