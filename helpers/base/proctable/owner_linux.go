package proctable

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/classproof/classproof/helpers/base/actas"
)

// openAsOwner opens path (a file of /proc/PID's, or one a process names) with flags as the user
// that owns pid when the kit is root and that user is not (actas.Open: a regular file only, unless
// O_PATH): what a process of the launcher's shows only to those with ptrace access (its
// executable, its environment) is then opened with the launcher's own rights, which need no
// CAP_SYS_PTRACE (a container with Docker's defaults has none) and lend it nothing, and read by
// the kit. The owner is the one uid (and gid) /proc/PID/status gives as real, effective, saved
// and fs alike, as the kernel's ptrace check wants them (kernel/ptrace.c, __ptrace_may_access);
// a process whose ids differ is read as the kit. A pid reused in between is read with the former
// owner's rights: no more than those.
func openAsOwner(pid int, path string, flags int) (*os.File, error) {
	uid, gid := os.Geteuid(), os.Getegid()
	if owner, group, ok := ownerIDs(pid); ok && owner != 0 && uid == 0 {
		uid, gid = owner, group
	}
	return actas.Open(uid, gid, ownerBound, path, flags)
}

// ownerBound bounds the process of an owner's ids that opens a file of a process in a user
// namespace its owner made (actas.Open): one open(2). Not scaled by the run's time scale, which
// this level of the kit does not see (helpers/base/contract is a level-2 package, as this one):
// a minute is orders of magnitude past an open on the slowest machine the kit runs on.
const ownerBound = time.Minute

// ownerIDs is the single uid and gid of pid's Uid: and Gid: lines in /proc/PID/status.
func ownerIDs(pid int) (uid, gid int, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, false
	}
	uid, uok := sameIDs(string(b), "Uid:")
	gid, gok := sameIDs(string(b), "Gid:")
	return uid, gid, uok && gok
}

// sameIDs is the one id a status line (real, effective, saved, fs) gives, when all four agree.
func sameIDs(status, key string) (int, bool) {
	f := StatusFields(status, key)
	if len(f) != 4 || f[0] != f[1] || f[0] != f[2] || f[0] != f[3] {
		return 0, false
	}
	id, err := strconv.Atoi(f[0])
	return id, err == nil
}

// StatusFields is the fields of the first line of a /proc/PID/status text that starts with key
// ("Uid:", "Tgid:", "NSpid:"); nil when there is none.
func StatusFields(status, key string) []string {
	for _, line := range strings.Split(status, "\n") {
		if v, ok := strings.CutPrefix(line, key); ok {
			return strings.Fields(v)
		}
	}
	return nil
}
