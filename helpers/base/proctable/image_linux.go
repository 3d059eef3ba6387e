package proctable

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/classproof/classproof/helpers/base/actas"
)

func keyOf(f *os.File) (fileKey, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return fileKey{}, err
	}
	return fileKey{dev: st.Dev, ino: st.Ino, size: st.Size, mtime: st.Mtim, ctime: st.Ctim}, nil
}

// runBy hands check pid's executable, opened through /proc/PID/exe, the kernel's link to the file
// the process runs (a memfd, a deleted copy), with the launcher's rights (openAsOwner).
func runBy(pid int, check func(f *os.File) (bool, error)) (bool, error) {
	f, err := openAsOwner(pid, fmt.Sprintf("/proc/%d/exe", pid), unix.O_RDONLY)
	if err != nil {
		return false, err
	}
	defer f.Close()
	return check(f)
}

// loaderRE names a dynamic loader (glibc's ld-linux-x86-64.so.2, musl's ld-musl-x86_64.so.1,
// ld.so), which runs the program named in its arguments: /proc/PID/exe is then the loader.
var loaderRE = regexp.MustCompile(`^ld(-[A-Za-z0-9_.-]+)?\.so(\.[0-9]+)*$`)

// LoadedBy is the arguments from the program a dynamic loader runs on, when pid is a loader
// running this image (ld.so HARNESS --report ...: the harness's code, under another executable);
// ok false otherwise. The arguments are read only for a loader, with argsOf (Args, or
// ArgsAfterExec for a process that may be in the middle of exec: its executable is the loader
// before its arguments show); argsOf's error is returned, so a loader the kit cannot read is
// never taken for one that runs something else. Each of the first arguments that names a file is
// opened as pid's owner (openAsOwner), relative to pid's own folder: a regular file only,
// without blocking. An argument that names no regular file (none there, a folder: an option's
// value, the program's own arguments) is no program; one that names a file the kit cannot open
// or parse is an error, returned when no argument runs this image: the kit cannot tell what the
// loader runs, and never says "not loaded" for it.
func (im Image) LoadedBy(pid int, argsOf func(pid int) ([]string, error)) (args []string, ok bool, err error) {
	exe, err := Exe(pid)
	if err != nil || !loaderRE.MatchString(filepath.Base(exe)) {
		return nil, false, nil
	}
	if args, err = argsOf(pid); err != nil {
		return nil, false, err
	}
	var errs []error
	for i := 1; i < len(args) && i <= 8; i++ {
		if strings.HasPrefix(args[i], "-") || args[i] == "" {
			continue // the loader's own options (--library-path DIR, --argv0 NAME: one more look)
		}
		path := args[i]
		if !filepath.IsAbs(path) {
			path = fmt.Sprintf("/proc/%d/cwd/%s", pid, path)
		}
		f, err := openAsOwner(pid, path, unix.O_RDONLY) // a regular file only, opened without blocking
		if noFile(err) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("argument %d of loader pid %d, %q: %w", i, pid, args[i], err))
			continue
		}
		runs, err := im.runs(f)
		f.Close()
		if runs {
			return args[i:], true, nil
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("argument %d of loader pid %d, %q: %w", i, pid, args[i], err))
		}
	}
	return nil, false, errors.Join(errs...)
}

// noFile says an open's error means its name holds no regular file: none there (ENOENT, a path
// through a file: ENOTDIR, a name too long, a symlink loop), or something else (a folder).
func noFile(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.ENAMETOOLONG) ||
		errors.Is(err, syscall.ELOOP) || errors.Is(err, actas.ErrNotRegular)
}
