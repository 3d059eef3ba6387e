package identity

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/classproof/classproof/helpers/base/actas"
	"github.com/classproof/classproof/helpers/base/files"
	"github.com/classproof/classproof/helpers/base/proctable"
)

// The processes of a uid, as /proc shows them to root: whether it is free to take, what it holds
// against its bounds, and the kill of all of them.

// held is a process with a uid among its ids, as /proc/PID/status says.
type held struct {
	pid, threads int
	rss          uint64 // resident bytes
	real, zombie bool   // uid is its real uid; it ended and was not waited for
}

// uidProcs is every process whose real, effective, saved or file-system uid or gid is uid,
// zombies included (the kernel still counts them against the uid's RLIMIT_NPROC). Every status
// is read: a launcher that made itself non-dumpable (its /proc folder then root's) hides nothing.
func uidProcs(uid int) ([]held, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	want := strconv.Itoa(uid)
	var out []held
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := files.ReadClaim(fmt.Sprintf("/proc/%d/status", pid), 64<<10)
		if err != nil {
			continue // gone
		}
		status := string(b)
		ids := append(proctable.StatusFields(status, "Uid:"), proctable.StatusFields(status, "Gid:")...)
		if !slices.Contains(ids, want) {
			continue
		}
		h := held{pid: pid, real: len(ids) > 0 && ids[0] == want}
		if f := proctable.StatusFields(status, "Threads:"); len(f) > 0 {
			h.threads, _ = strconv.Atoi(f[0])
		}
		// A leader thread that exited by itself shows Z while the other threads run on (and
		// hold the memory): only a zombie with no thread left is dead (proctable.Stat.Dead).
		if f := proctable.StatusFields(status, "State:"); len(f) > 0 && f[0] == "Z" {
			h.zombie = h.threads <= 1
			status = liveThreadStatus(pid)
		}
		if f := proctable.StatusFields(status, "VmRSS:"); len(f) > 0 {
			kb, _ := strconv.ParseUint(f[0], 10, 64)
			h.rss = kb << 10
		}
		out = append(out, h)
	}
	return out, nil
}

// liveThreadStatus is the status of a thread of pid that has not exited ("" if none): a zombie
// leader's own shows no memory.
func liveThreadStatus(pid int) string {
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	for _, t := range tasks {
		b, err := files.ReadClaim(fmt.Sprintf("/proc/%d/task/%s/status", pid, t.Name()), 64<<10)
		if f := proctable.StatusFields(string(b), "State:"); err == nil && len(f) > 0 && f[0] != "Z" {
			return string(b)
		}
	}
	return ""
}

// uidBusy lists the pids of uidProcs(uid); with dead, zombies too (a uid that has one is not
// free), else only the living (a zombie is its parent's to reap, no kill ends it).
func uidBusy(uid int, dead bool) ([]int, error) {
	procs, err := uidProcs(uid)
	var pids []int
	for _, p := range procs {
		if dead || !p.zombie {
			pids = append(pids, p.pid)
		}
	}
	return pids, err
}

// KillAll kills every process of id's uid, as that uid, until none is left (a fork storm races
// the first kill), and names each it found ("pid N [args]"): at a run's release, and when the uid
// passed a bound (helpers/base/limits).
func (id Identity) KillAll() []string {
	var leaks []string
	seen := map[int]bool{}
	for round := 0; round < 50; round++ {
		busy, err := uidBusy(id.Uid, false)
		if err != nil {
			return append(leaks, fmt.Sprintf("listing the processes of uid %d: %v", id.Uid, err))
		}
		// Once whatever the list shows: a process /proc cannot show (another pid namespace's
		// view, a race with its start) is the uid's too.
		if len(busy) == 0 && round > 0 {
			break
		}
		for _, pid := range busy {
			if !seen[pid] {
				seen[pid] = true
				switch args, err := proctable.Args(pid); {
				case err == nil:
					leaks = append(leaks, fmt.Sprintf("pid %d %q", pid, args))
				case errors.Is(err, proctable.ErrNoArgs): // caught in its exec: a leak all the same
					leaks = append(leaks, fmt.Sprintf("pid %d (%v)", pid, err))
				}
			}
		}
		_, _ = actas.Child(id.Uid, id.Gid, sweepBound(), actas.KillAll) // a process of the uid's own, never a thread of the kit's
		time.Sleep(time.Duration(round+1) * 10 * time.Millisecond)      // the kernel reaps the killed
	}
	sort.Strings(leaks)
	return leaks
}

// Holds counts the processes and threads whose real uid is id's, as RLIMIT_NPROC does: a zombie
// too, until it is reaped (kernel/exit.c, release_task, gives its count back); and sums the
// resident memory of the living.
func (id Identity) Holds() (tasks int, rss uint64) {
	procs, _ := uidProcs(id.Uid)
	for _, p := range procs {
		if !p.real {
			continue
		}
		tasks += max(1, p.threads)
		if !p.zombie {
			rss += p.rss
		}
	}
	return tasks, rss
}
