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
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/classproof/classproof/helpers/base/contract"
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
