package binaries

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/classproof/classproof/helpers/base/files"
	"github.com/classproof/classproof/helpers/base/identity"
)

// A release archive's binaries that launcher processes run (the fixture harness, an embedded
// manifest's prebuilt launcher) sit where the user extracted it. A root kit's launcher runs as
// another user (identity.Launcher), which cannot pass through a folder of root's alone
// (/root, a mktemp -d): the kit then runs a copy of them from its cache folder, where it runs a
// build's {bin} from (CacheDir: folders of root's, open to pass through, never to list or write).

// forLaunchers is the archive's file or folder at root/rel as launcher processes are to run it:
// in place where their user reaches all of it, else a copy in the kit's cache folder
// (bin-archive-KEY, KEY a hash of its names and bytes), made by the kit from the archive's bytes,
// the kit's, and made again whenever its bytes are not the archive's.
func forLaunchers(root, rel string) (string, error) {
	src := filepath.Join(root, rel)
	fi, err := os.Lstat(src)
	if err != nil {
		return "", err
	}
	// What is copied: a folder's regular files, or the one file, from its folder.
	names := []string{filepath.Base(src)}
	if fi.IsDir() {
		if names, err = regularFiles(src); err != nil {
			return "", err
		}
	} else {
		src = filepath.Dir(src)
	}
	id := identity.Launcher()
	if reachesAll(id, src, names) == nil {
		return filepath.Join(root, rel), nil
	}
	sums := make(map[string]string, len(names))
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", DistVersion, rel)
	for _, n := range names {
		if sums[n], err = SumFile(filepath.Join(src, n)); err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %s\n", n, sums[n])
	}
	cache, err := CacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, "bin-archive-"+hex.EncodeToString(h.Sum(nil))[:16])
	sweepStale(cache, dir) // another archive's copies, unused for a day
	unlock, err := files.Lock(dir + ".lock")
	if err != nil {
		return "", err
	}
	defer unlock()
	if !sameBytes(dir, sums) {
		if err := copyFiles(src, dir, sums, id.DirMode()); err != nil {
			os.RemoveAll(dir)
			return "", fmt.Errorf("copying %s from the release archive at %s to %s, where uid %d, which launcher processes run as, can reach it: %w", rel, root, dir, id.Uid, err)
		}
	}
	now := time.Now()
	_ = os.Chtimes(dir, now, now) // last used, for the sweep
	if fi.IsDir() {
		return dir, nil
	}
	return filepath.Join(dir, names[0]), nil
}

// stagedMarker is written last into a copy: a copy without it was cut short.
const stagedMarker = ".staged"

// regularFiles are the names of the regular files directly in dir (a launcher's build: its
// binaries and its .complete marker).
func regularFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// reachesAll says whether id may reach and read each named file in src.
func reachesAll(id identity.Identity, src string, names []string) error {
	for _, n := range names {
		if err := id.Reaches(filepath.Join(src, n)); err != nil {
			return err
		}
	}
	return nil
}

// sameBytes says whether dir is a whole copy whose every file has its sum in sums.
func sameBytes(dir string, sums map[string]string) bool {
	if _, err := os.Lstat(filepath.Join(dir, stagedMarker)); err != nil {
		return false
	}
	for n, want := range sums {
		if got, err := SumFile(filepath.Join(dir, n)); err != nil || got != want {
			return false
		}
	}
	return true
}

// copyFiles makes dir afresh (the kit's, mode) with a copy of each file below src that sums
// names, each checked against its sum as written, then the marker.
func copyFiles(src, dir string, sums map[string]string, mode os.FileMode) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.Mkdir(dir, mode); err != nil {
		return err
	}
	if err := os.Chmod(dir, mode); err != nil { // the umask's bits back
		return err
	}
	for n, want := range sums {
		from, to := filepath.Join(src, n), filepath.Join(dir, n)
		fi, err := os.Stat(from)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(from)
		if err != nil {
			return err
		}
		if got := sha256.Sum256(b); hex.EncodeToString(got[:]) != want {
			return fmt.Errorf("%s changed while it was copied", from)
		}
		perm := os.FileMode(0o644)
		if fi.Mode()&0o111 != 0 {
			perm = 0o755
		}
		f, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if err != nil {
			return err
		}
		_, err = f.Write(b)
		if err == nil {
			err = f.Chmod(perm)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, stagedMarker), nil, 0o644)
}
