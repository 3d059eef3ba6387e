// Package files writes, locks and checks files and folders the kit trusts: a write is whole or not
// at all (temp file and rename), a lock never goes through a symlink, and a folder is trusted only
// when no one else can write it or any folder on the way to it.
//
// It is a bottom layer: it imports nothing of the kit.
package files

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Private checks that path is ours alone: not a symlink, owned by this user (or by one of also,
// to whom the kit handed it: a root kit's ledger, which its launcher's user appends to), and not
// writable by group or others; dir says whether it must be a folder (else a regular file). A
// shared folder or a planted file is where reports could be redirected or a ledger could name a
// stranger.
func Private(path string, dir bool, also ...int) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		return fmt.Errorf("%s is a symlink", path)
	case dir && !fi.IsDir(), !dir && !fi.Mode().IsRegular():
		return fmt.Errorf("%s is not a %s", path, map[bool]string{true: "folder", false: "regular file"}[dir])
	case ok && int(st.Uid) != os.Geteuid() && !slices.Contains(also, int(st.Uid)):
		return fmt.Errorf("%s is owned by uid %d, not by this user (uid %d)", path, st.Uid, os.Geteuid())
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("%s is writable by others (mode %v)", path, fi.Mode().Perm())
	}
	return nil
}

// WriteFile writes data to path through a temp file in the same folder and a rename, so a reader
// never sees half a file and a planted symlink at path is replaced, not written through.
func WriteFile(path string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// TryLock takes the lock on path (see Lock) only if no one holds it: ok is false when someone does.
func TryLock(path string) (unlock func(), ok bool, err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, false, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("locking %s: %w", path, err)
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, true, nil
}

// Lock takes an exclusive lock on path (made if missing, never through a symlink), waiting for
// another holder to let go, and returns how to let go of it.
func Lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

// ReadClaim reads a file a launcher's process wrote (a harness report, a config file): at most
// max bytes, from a regular file reached by no symlink, opened so that a FIFO cannot block the
// read. Anything else is an error naming it: a report that is a symlink to /dev/zero, a FIFO, or
// a file that does not end, is a claim the kit refuses, never one it runs out of memory on.
func ReadClaim(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s is a symlink; refused", path)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%v); refused", path, fi.Mode().Type())
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is over %d bytes; refused", path, max)
	}
	return b, nil
}

// CacheBase is the user's cache folder, or, with no $HOME (some CI containers), a folder of this
// user's in the temp folder, whose name anyone can guess: whoever runs binaries from below it
// checks it is theirs alone first. The kit's cache and a launcher build's {cache} sit side by
// side in it.
func CacheBase() string {
	base, err := os.UserCacheDir()
	if err != nil {
		base = TempCacheBase()
	}
	return base
}

// TempCacheBase is this user's cache folder in the temp folder (see CacheBase).
func TempCacheBase() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("classproof-cache-%d", os.Geteuid()))
}

// WriteBeneath writes data to the file rel below the folder root, which another user (a root
// kit's launcher, identity.Identity) owns and may have changed since: no symlink on the way is
// followed, each missing folder is made, and a file that is not a regular one of its own with one
// link (a hard link to a file of root's) is refused. What it made, and the file, are handed to
// uid and gid (-1: left as they are), so that the other user may read and rewrite them.
func WriteBeneath(root, rel string, data []byte, uid, gid int) error {
	if filepath.IsAbs(rel) || rel != filepath.Clean(rel) || rel == ".." || strings.HasPrefix(rel, "../") {
		return fmt.Errorf("%s is not a path below %s", rel, root)
	}
	dir, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("opening %s: %w", root, err)
	}
	defer func() { unix.Close(dir) }()
	parts := strings.Split(rel, string(filepath.Separator))
	for _, name := range parts[:len(parts)-1] {
		made := unix.Mkdirat(dir, name, 0o700) == nil
		next, err := unix.Openat(dir, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("opening %s below %s (never through a symlink): %w", name, root, err)
		}
		unix.Close(dir)
		dir = next
		if made && uid >= 0 {
			if err := unix.Fchown(dir, uid, gid); err != nil {
				return fmt.Errorf("handing %s to uid %d: %w", filepath.Join(root, name), uid, err)
			}
		}
	}
	path := filepath.Join(root, rel)
	fd, err := unix.Openat(dir, parts[len(parts)-1], unix.O_WRONLY|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return fmt.Errorf("opening %s (never through a symlink): %w", path, err)
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Nlink != 1 {
		return fmt.Errorf("%s is not a regular file with one link (mode %o, %d links); refused", path, st.Mode, st.Nlink)
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		return err
	}
	if uid >= 0 {
		if err := f.Chown(uid, gid); err != nil {
			return fmt.Errorf("handing %s to uid %d: %w", path, uid, err)
		}
	}
	return f.Close()
}

// Within says whether the clean absolute path is dir or below it, by its names alone.
func Within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// Resolved is path with every symlink in its longest existing part followed (the part that does
// not exist yet is joined on as written): where a write sandbox's rule for path lands, as
// Landlock opens a rule's folder. A dangling symlink is followed too: what it names may be made
// later (a cache folder the kit makes on first use), and the rule lands there then.
func Resolved(path string) string { return resolved(path, 40) }

func resolved(path string, hops int) string {
	rest := ""
	for p := filepath.Clean(path); ; p = filepath.Dir(p) {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest)
		}
		if to, err := os.Readlink(p); err == nil && hops > 0 {
			if !filepath.IsAbs(to) {
				to = filepath.Join(filepath.Dir(p), to)
			}
			return resolved(filepath.Join(to, rest), hops-1)
		}
		if p == filepath.Dir(p) {
			return filepath.Clean(path)
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}
