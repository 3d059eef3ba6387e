package launcher

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// sealedSpec writes the bytes spawn_spec is handed where launcher processes may read them and
// change nothing (review H1): a fresh folder of the kit's, outside every folder the sandbox lets
// them write (the instance's {dir} is theirs: what a translator left running rewrote the spec it
// had been judged on there), the folder 0555 and the file 0444, made through one descriptor of
// the folder while it is still 0700. done removes it; call it once spawn_spec has ended.
//
// What holds: with the sandbox on, no launcher process may write there, whatever its uid. Without
// it, a root kit's launcher of another uid may not (root's folder and file, no write bit for it);
// a launcher of the kit's own uid could chmod its way in, as it could change anything of the kit's
// (then EndGroup, before the spec is sent, is what stops a translator's leftovers).
func sealedSpec(b []byte) (path string, done func(), err error) {
	dir, err := os.MkdirTemp(instanceBase(), "cpspec-")
	if err != nil {
		return "", func() {}, fmt.Errorf("making a read-only folder for the spec spawn_spec is handed: %w", err)
	}
	done = func() {
		_ = os.Chmod(dir, 0o700)
		_ = os.RemoveAll(dir)
	}
	fail := func(err error) (string, func(), error) {
		done()
		return "", func() {}, fmt.Errorf("writing the spec spawn_spec is handed in %s: %w", dir, err)
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fail(err)
	}
	defer unix.Close(fd)
	f, err := unix.Openat(fd, "spec.json", unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o444)
	if err != nil {
		return fail(err)
	}
	w := os.NewFile(uintptr(f), "spec.json")
	_, werr := w.Write(b)
	if err := errors.Join(werr, unix.Fchmod(f, 0o444), w.Close(), unix.Fchmod(fd, 0o555)); err != nil {
		return fail(err)
	}
	return filepath.Join(dir, "spec.json"), done, nil
}
