package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/classproof/classproof/helpers/base/identity"
)

// ioFS is where the I/O bench runs.
type ioFS struct {
	dir       string // a folder on it, for the foreground and the load
	describe  string // what it is, for the report
	scheduler string // the block device's I/O scheduler, "unknown" when it cannot be read
	why       string // why no loop device with bfq, when there is none
	base      string // a kit folder in the temp folder holding the work, removed by close; "" for out
	undo      []func() error
	log       func(string, ...any)
}

// remove undoes the setup in reverse, reporting (not hiding) what could not be undone.
func (f *ioFS) remove() {
	for i := len(f.undo) - 1; i >= 0; i-- {
		if err := f.undo[i](); err != nil && f.log != nil {
			f.log("cleaning up the bench filesystem: %v", err)
		}
	}
	f.undo = nil
}

// close is remove, then the temp folder the work was in, if any.
func (f *ioFS) close() {
	f.remove()
	if f.base != "" {
		if err := os.RemoveAll(f.base); err != nil && f.log != nil {
			f.log("cleaning up the bench filesystem: %v", err)
		}
	}
}

// newImage makes a new regular file of size bytes at path, never through a symlink: one left by
// a killed run is replaced, anything else there (a symlink, a device, a folder) is refused.
func newImage(path string, size int64) error {
	switch fi, err := os.Lstat(path); {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return err
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s exists and is not a regular file (%v); refusing to write the bench's disk image through it", path, fi.Mode().Type())
	default:
		if err := os.Remove(path); err != nil {
			return err
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return fmt.Errorf("making the bench's disk image: %w", err)
	}
	err = f.Truncate(size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// ioFilesystem makes, where it can (Linux, root, losetup, mkfs.ext4, bfq available), a 1 GiB
// ext4 on a loop device backed by a file under out, with bfq as that device's scheduler, and
// otherwise a folder under out on the filesystem it is on.
func ioFilesystem(ctx context.Context, out string, o IOOptions) (*ioFS, error) {
	f := &ioFS{log: func(format string, a ...any) { ioLogf(o, format, a...) }}
	out, err := f.reachableBase(out)
	if err != nil {
		return f, err
	}
	why := loopUnavailable(o)
	if why == "" {
		var err error
		if why, err = f.loopDisk(ctx, out); err != nil || why == "" {
			return f, errors.Join(err, f.handOver())
		}
	}
	// A folder under out on the filesystem it is on, labelled with why it is not the loop disk:
	// made here, under a name nobody could plant a symlink at beforehand (the launcher's build
	// runs before, as the kit's user), so nothing the bench writes or deletes is outside it.
	dir, err := os.MkdirTemp(out, "io-work-")
	if err != nil {
		return f, err
	}
	f.dir = dir
	f.undo = append(f.undo, func() error { return os.RemoveAll(f.dir) })
	f.why = why
	f.describe, f.scheduler = describeDir(f.dir)
	return f, f.handOver()
}

// reachableBase is where the work goes: out, or, when the launcher's user cannot pass through to
// it (a root kit's clone in /root or in a mktemp -d folder), a kit folder in the temp folder that
// user passes through, removed by close.
func (f *ioFS) reachableBase(out string) (string, error) {
	id := identity.Launcher()
	if id.Passes(out) == nil {
		return out, nil
	}
	base, err := id.TempDir("classproof-bench-io-")
	f.base = base
	return base, err
}

// handOver gives the work folder (the loop disk's root, or the folder under out) to the
// launcher's user: the loads the harness starts write there as that user.
func (f *ioFS) handOver() error {
	id := identity.Launcher()
	if err := id.Give(f.dir); err != nil {
		return err
	}
	if err := id.Reaches(f.dir); err != nil {
		return fmt.Errorf("the I/O bench's work folder %s: %w; the loads run there as the launcher's user: pass an --out it can reach", f.dir, err)
	}
	return nil
}

// loopUnavailable says why this machine cannot make the loop disk; "" when it can try.
func loopUnavailable(o IOOptions) string {
	switch {
	case o.NoLoop:
		return "--no-loop"
	case runtime.GOOS != "linux":
		return "a loop device with bfq is Linux-only"
	case os.Geteuid() != 0:
		return "not root: cannot make a loop device"
	}
	for _, tool := range []string{"losetup", "mkfs.ext4", "mount", "umount"} {
		if _, err := exec.LookPath(tool); err != nil {
			return tool + " not found"
		}
	}
	return ""
}

// loopDisk makes the 1 GiB ext4 on a loop device with bfq and mounts it under out. why says why
// it could not, having undone what it did (the bench then runs on a plain folder); err is a
// refusal the bench stops for.
func (f *ioFS) loopDisk(ctx context.Context, out string) (why string, err error) {
	img := filepath.Join(out, "io-disk.img")
	if err := newImage(img, 1<<30); err != nil {
		return "", err
	}
	f.undo = append(f.undo, func() error { return os.Remove(img) })
	dev, err := runIn(ctx, "losetup", "--find", "--show", "--direct-io=on", img)
	if err != nil {
		f.remove()
		return "no loop device: " + err.Error(), nil
	}
	f.undo = append(f.undo, func() error {
		// After an interrupt too: never with the run's context.
		_, err := runIn(context.Background(), "losetup", "--detach", dev)
		return err
	})
	sched := filepath.Join("/sys/block", filepath.Base(dev), "queue", "scheduler")
	if err := os.WriteFile(sched, []byte("bfq"), 0); err != nil {
		f.remove()
		return fmt.Sprintf("%s: cannot select bfq: %v", sched, err), nil
	}
	if _, err := runIn(ctx, "mkfs.ext4", "-q", "-F", dev); err != nil {
		f.remove()
		return err.Error(), nil
	}
	mnt := filepath.Join(out, "io-mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		f.remove()
		return "", err
	}
	if fi, err := os.Lstat(mnt); err != nil || !fi.IsDir() {
		f.remove()
		return "", fmt.Errorf("%s is not a folder (a symlink?); refusing to mount the bench's disk there", mnt)
	}
	f.undo = append(f.undo, func() error { return os.Remove(mnt) })
	if _, err := runIn(ctx, "mount", dev, mnt); err != nil {
		f.remove()
		return err.Error(), nil
	}
	f.undo = append(f.undo, func() error { return unmount(mnt, dev) })
	f.dir = mnt
	f.describe = fmt.Sprintf("ext4 on %s (1 GiB, backed by a file under %s, direct I/O)", dev, out)
	f.scheduler = readScheduler(sched)
	return "", nil
}

// unmount retries for a while: a load process the cleanup is still reaping can hold the mount.
func unmount(mnt, dev string) error {
	var err error
	for i := 0; i < 50; i++ {
		if err = syscall.Unmount(mnt, 0); err == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("umount %s: %w (left mounted; umount it, then losetup --detach %s)", mnt, err, dev)
}

// runIn runs a setup command, its output in the error.
func runIn(ctx context.Context, name string, args ...string) (string, error) {
	b, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(b)))
	}
	return strings.TrimSpace(string(b)), nil
}

// readScheduler is the selected scheduler in a queue/scheduler file ("mq-deadline kyber [bfq]
// none").
func readScheduler(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "unknown"
	}
	for _, w := range strings.Fields(string(b)) {
		if strings.HasPrefix(w, "[") && strings.HasSuffix(w, "]") {
			return strings.Trim(w, "[]")
		}
	}
	return "unknown"
}
