// Package identity is who a launcher's processes run as, and what that user may do. A root kit on
// Linux starts them as another user, the run's own uid where it took one (ForRun), so that no
// sandbox is all that stands between a launcher and root's power; this package chooses that
// user, judges by its rights what the kit hands it, reads for it and runs for it (Reaches,
// ReadClaim, LookPath, MaySwap), and when the run lets go of its uid kills what is left of it and
// sweeps what it left in the shared folders. How much that user may hold is helpers/base/limits;
// what it may write, helpers/base/confine, which the sweep asks whether writes were confined.
package identity

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/files"
)

// Identity is who launcher processes run as. A root process can write /proc/sys (the kernel checks
// the uid: kernel/sysctl.c, test_perm) and the kit's own /proc entries, and change the kit's class
// (kernel/sched/syscalls.c, check_same_owner), which no write sandbox refuses; neither a dropped
// capability set nor a user namespace mapping root to root changes the uid those checks see. So a
// root kit on Linux starts its launcher processes as another user (DefaultLauncherUID unless
// contract.LauncherUIDEnv says otherwise): setuid in the child before exec, which also empties its
// capabilities (kernel/capability rules for a uid change away from 0, capabilities(7)). That user
// may still set its own children's classes: SCHED_IDLE, I/O class idle and a higher autogroup
// nice need no privilege for one's own processes.
type Identity struct {
	Uid, Gid int
	// CapEff is the effective capability set (Linux, /proc/self/status), as hex; "" elsewhere.
	CapEff string
	// PerRun says the uid is the run's own (ForRun): no other run, kit or account uses it.
	PerRun bool
	kit    int // the kit's own euid: a launcher identity that differs from it is another user
}

// FirstRunUID and LastRunUID bound the uids a root kit takes one from for each run: systemd's
// range for DynamicUser= (systemd's docs/UIDS-GIDS.md, "61184…65519"), which no account in
// /etc/passwd is given. systemd takes from it too: a uid it holds (a lock file named by the
// number in /run/systemd/dynamic-uid, src/core/dynamic-user.c) is passed over, as is one any
// process, account or group already has.
const FirstRunUID, LastRunUID = 61184, 65519

// DefaultLauncherUID is nobody (and nogroup) on Debian, Ubuntu and Fedora alike.
const DefaultLauncherUID = 65534

var launcher, build struct {
	once sync.Once
	id   Identity
	err  error
}

// Launcher is who this process's launcher processes run as: the run's own user where the
// CLI took one (contract.RunUIDEnv, set for the suites), else ForBuild. A malformed value
// never gives root: the identity is then the default, and Check says what was
// wrong (a run refuses to start on it).
func Launcher() Identity {
	launcher.once.Do(func() {
		run := contract.Current().RunUID
		if run == "" {
			launcher.id, launcher.err = ForBuild(), build.err
			return
		}
		launcher.id, launcher.err = chooseIdentity(run)
		launcher.id.PerRun = launcher.err == nil && launcher.id.Other()
		if launcher.err != nil {
			launcher.err = fmt.Errorf("$%s (set by the CLI for the suites): %w", contract.RunUIDEnv, launcher.err)
		}
	})
	return launcher.id
}

// ForBuild is the user's choice (contract.LauncherUIDEnv), the same for every run: who a
// launcher's build step runs as, and whose {cache} it writes, kept between runs; and who runs
// the launcher where no run took a user of its own (bench, doctor, a suite run without the CLI).
func ForBuild() Identity {
	build.once.Do(func() { build.id, build.err = chooseIdentity(contract.Current().LauncherUID) })
	return build.id
}

// Check is the error in the user's choice of a launcher identity, if any.
func Check() error {
	ForBuild()
	if build.err != nil {
		return build.err
	}
	if contract.Current().RunUID != "" {
		Launcher()
		return launcher.err
	}
	return nil
}

func chooseIdentity(choice string) (Identity, error) {
	kit := Identity{Uid: os.Geteuid(), Gid: os.Getegid(), kit: os.Geteuid()}
	if runtime.GOOS == "linux" {
		if b, err := os.ReadFile("/proc/self/status"); err == nil {
			kit.CapEff = capEff(string(b))
		}
	}
	// Only a root kit has another user to become; on macOS a root kit keeps its identity (run.json
	// says root, and gate --require-sandbox blocks the lane).
	if kit.Uid != 0 || runtime.GOOS != "linux" || choice == "0" {
		return kit, nil
	}
	other := Identity{Uid: DefaultLauncherUID, Gid: DefaultLauncherUID, CapEff: "0000000000000000", kit: kit.Uid}
	if choice == "" {
		return other, nil
	}
	u, g, two := strings.Cut(choice, ":")
	uid, uerr := strconv.ParseUint(u, 10, 31)
	gid := uid
	var gerr error
	if two {
		gid, gerr = strconv.ParseUint(g, 10, 31)
	}
	if uerr != nil || gerr != nil || uid == 0 || (two && gid == 0) {
		return other, fmt.Errorf("$%s=%q: expected UID or UID:GID, numbers above 0 (e.g. 65534 or 1001:1001), or 0 to keep root (the run then says the launcher held root, and gate --require-sandbox blocks the lane)",
			contract.LauncherUIDEnv, choice)
	}
	other.Uid, other.Gid = int(uid), int(gid)
	return other, nil
}

// capEff is the CapEff field of a /proc/PID/status text.
func capEff(status string) string {
	for _, line := range strings.Split(status, "\n") {
		if v, ok := strings.CutPrefix(line, "CapEff:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// Root says whether launcher processes hold root's power: uid 0, or any effective capability.
func (id Identity) Root() bool {
	if id.Uid == 0 {
		return true
	}
	caps, err := strconv.ParseUint(id.CapEff, 16, 64)
	return err == nil && caps != 0
}

// RunUID is id as contract.RunUIDEnv hands a run's own user to the suites; "" for any other.
func (id Identity) RunUID() string {
	if !id.PerRun {
		return ""
	}
	return fmt.Sprintf("%d:%d", id.Uid, id.Gid)
}

// Other says whether launcher processes run as another user than the kit.
func (id Identity) Other() bool { return id.Uid != id.kit }

func (id Identity) String() string {
	s := fmt.Sprintf("uid %d gid %d", id.Uid, id.Gid)
	if id.CapEff != "" {
		s += ", capabilities " + id.CapEff
	}
	if id.Root() {
		s += " (root: launcher processes may write /proc/sys and the kit's own /proc entries and change the kit's class; no sandbox refuses that)"
	} else if id.PerRun {
		s += fmt.Sprintf(" (the run's own: taken for this run from %d-%d, used by no other run, kit or account; the kit runs as uid %d; launcher processes run as this user, set in each before exec)", FirstRunUID, LastRunUID, id.kit)
	} else if id.Other() {
		s += fmt.Sprintf(" (the kit runs as uid %d; launcher processes run as this user, set in each before exec)", id.kit)
	}
	return s
}

// Credential is what a launcher process starts with (syscall.SysProcAttr.Credential): nil, the
// kit's own, or the other user's uid and gid with no supplementary groups (root's would follow
// it through setuid otherwise).
func (id Identity) Credential() *syscall.Credential {
	if !id.Other() {
		return nil
	}
	return &syscall.Credential{Uid: uint32(id.Uid), Gid: uint32(id.Gid), Groups: []uint32{}}
}

// Give hands folders and files the kit made for launcher processes (their private folder, a
// profile, a spawn spec, the ledger) to the launcher's user, never through a symlink.
func (id Identity) Give(paths ...string) error {
	if !id.Other() {
		return nil
	}
	for _, p := range paths {
		if err := os.Lchown(p, id.Uid, id.Gid); err != nil {
			return fmt.Errorf("handing %s to the launcher's user (uid %d): %w", p, id.Uid, err)
		}
	}
	return nil
}

// GiveAt hands what the kit made for launcher processes to their user through a descriptor: the
// entry name of the folder open as dirfd, never through a symlink, or with name "", what dirfd
// itself is. A folder the kit fills before it hands it over is filled and handed this way: once
// the user owns it, a name in it may be that user's symlink (launcher.privateDir).
func (id Identity) GiveAt(dirfd int, name string) error {
	if !id.Other() {
		return nil
	}
	var err error
	if name == "" {
		name, err = "the folder", unix.Fchown(dirfd, id.Uid, id.Gid)
	} else {
		err = unix.Fchownat(dirfd, name, id.Uid, id.Gid, unix.AT_SYMLINK_NOFOLLOW)
	}
	if err != nil {
		return fmt.Errorf("handing %s to the launcher's user (uid %d): %w", name, id.Uid, err)
	}
	return nil
}

// Reclaim takes dir and everything below it back from the launcher's user, writable by the kit
// alone: what a build step made there (the binaries every later launcher process runs) is then
// out of reach of those processes.
func (id Identity) Reclaim(dir string) error {
	if !id.Other() {
		return nil
	}
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := os.Lchown(p, id.kit, os.Getegid()); err != nil {
			return fmt.Errorf("taking %s back from the launcher's user: %w", p, err)
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		return os.Chmod(p, fi.Mode().Perm()&^0o022)
	})
}

// CacheBase is where the kit keeps what launcher processes run or write between runs (the
// harness, the launcher's binaries, {cache}): the user's cache folder, when launcher processes can
// pass through to it; else (they run as another user, and root's home is 0700) root's folder in
// the temp folder, whose trust files.TrustedPath checks as for any user without a home.
func (id Identity) CacheBase() string {
	base := files.CacheBase()
	if id.Other() && id.Passes(existing(base)) != nil {
		return files.TempCacheBase()
	}
	return base
}

// existing is the longest part of path that exists.
func existing(path string) string {
	for {
		if _, err := os.Lstat(path); err == nil || path == filepath.Dir(path) {
			return path
		}
		path = filepath.Dir(path)
	}
}

// DirMode is the mode of a folder of the kit's that launcher processes must pass through (the
// cache holding the harness and the launcher's binaries): the kit's alone, and, when they run as
// another user, open to pass through (never to list or write).
func (id Identity) DirMode() os.FileMode {
	if id.Other() {
		return 0o711
	}
	return 0o700
}

// Reaches says whether the launcher's user can reach path and read it: every folder on the way
// open to pass through, for it as owner, group or other (by the mode bits; ACLs are not read).
func (id Identity) Reaches(path string) error { return id.passes(path, false) }

// Passes says whether the launcher's user can pass through the folder dir and each on the way
// (it need not list it: a folder the kit hands it next, a cache folder of 0711).
func (id Identity) Passes(dir string) error { return id.passes(dir, true) }

// passes is Reaches, or with through, whether the user can pass through path itself (a folder it
// never lists).
func (id Identity) passes(path string, through bool) error {
	if !id.Other() {
		return nil
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	for p, last := real, !through; ; p, last = filepath.Dir(p), false {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		need := os.FileMode(0o1) // pass through
		if last {
			need = 0o4 // read
			if fi.IsDir() {
				need = 0o5
			}
		}
		if !id.may(fi, need) {
			return &UnreachableError{Uid: id.Uid, Path: p, Mode: fi.Mode().Perm(), Read: last}
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// UnreachableError is a path launcher processes' user cannot reach: the folder on the way it
// cannot pass through, or the file or folder at the end it cannot read (Reaches, Passes, MayRun).
// A caller gives its way out by the type, never by the text.
type UnreachableError struct {
	Uid  int
	Path string
	Mode os.FileMode
	Read bool // the end of the path, unreadable; else a folder on the way
}

func (e *UnreachableError) Error() string {
	what := "pass through"
	if e.Read {
		what = "read"
	}
	return fmt.Sprintf("uid %d, which launcher processes run as, cannot %s %s (mode %v)", e.Uid, what, e.Path, e.Mode)
}

// MayWrite says whether the mode bits of fi let launcher processes' user make and remove names
// in the folder fi describes (write and pass through; ACLs are not read).
func (id Identity) MayWrite(fi os.FileInfo) bool { return id.may(fi, 0o3) }

// may says whether the mode bits of fi grant id every right in need (r=4, w=2, x=1).
func (id Identity) may(fi os.FileInfo, need os.FileMode) bool {
	perm := fi.Mode().Perm()
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		switch {
		case Owner(fi) == id.Uid:
			perm >>= 6
		case int(st.Gid) == id.Gid:
			perm >>= 3
		}
	}
	return perm&need == need
}

// TempDir makes a temporary folder of the kit's (os.MkdirTemp) that launcher processes pass
// through: the harness, the launcher's binaries or a red/green worktree sit below it.
func (id Identity) TempDir(pattern string) (string, error) {
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		return "", err
	}
	if err := os.Chmod(dir, id.DirMode()); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}
