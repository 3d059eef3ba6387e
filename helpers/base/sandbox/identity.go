package sandbox

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Identity is who launcher processes run as: the kit starts them with its own credentials, so a
// root kit (a container job, a docker CI executor) gives its launcher root. A root process can
// write /proc/sys (the kernel checks the uid: kernel/sysctl.c, test_perm) and the kit's own
// /proc entries, and change the kit's class (kernel/sched/syscalls.c, check_same_owner), which no
// write sandbox refuses: run.json records it, and gate --require-sandbox blocks such a lane.
type Identity struct {
	Uid, Gid int
	// CapEff is the effective capability set (Linux, /proc/self/status), as hex; "" elsewhere.
	CapEff string
}

// LauncherIdentity is who this process's launcher processes run as.
func LauncherIdentity() Identity {
	id := Identity{Uid: os.Geteuid(), Gid: os.Getegid()}
	if runtime.GOOS == "linux" {
		if b, err := os.ReadFile("/proc/self/status"); err == nil {
			id.CapEff = capEff(string(b))
		}
	}
	return id
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

func (id Identity) String() string {
	s := fmt.Sprintf("uid %d gid %d", id.Uid, id.Gid)
	if id.CapEff != "" {
		s += ", capabilities " + id.CapEff
	}
	if id.Root() {
		s += " (root: launcher processes may write /proc/sys and the kit's own /proc entries and change the kit's class; no sandbox refuses that)"
	}
	return s
}
