package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/classproof/classproof/helpers/base/actas"
	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/files"
	"github.com/classproof/classproof/helpers/base/proctable"
)

// runUIDLocks is where the kit's runs hold their uids (one lock file per uid, flock(2)): root's
// alone, and released by the kernel when a run's process ends, however it ends.
var runUIDLocks = "/run/classproof/uid"

// runUIDs is the range ForRun takes from (a test narrows it).
var runUIDs = [2]int{FirstRunUID, LastRunUID}

// ForRun is the identity for one run's launcher processes. For a root kit whose user chose no
// launcher uid (contract.LauncherUIDEnv unset), it is a uid and gid of the run's own (PerRun):
// no other run of this or another kit, no account and no process uses it while the run holds it,
// so no launcher of another run may signal, renice, prlimit, ptrace, connect to or read what this
// run's launcher owns, nor this one theirs (the kernel's checks are by uid). Else it is
// BuildIdentity, and release does nothing.
//
// release ends the run's hold: every process of the uid still alive is killed (as that uid:
// kill(2) with pid -1 reaches exactly the processes it may signal) and each named; what the uid
// left in the temp folder and /dev/shm is removed (as that uid) and named. The caller reports
// both; it calls release after its own sweep.
func ForRun() (id Identity, release func() (leaks, left []string), err error) {
	base := BuildIdentity()
	if err := CheckLauncherIdentity(); err != nil || contract.Current().LauncherUID != "" || !base.Other() {
		return base, func() ([]string, []string) { return nil, nil }, err
	}
	if err := os.MkdirAll(runUIDLocks, 0o700); err != nil {
		return base, nil, fmt.Errorf("making %s, where runs hold their launcher uids: %w", runUIDLocks, err)
	}
	if err := files.Private(runUIDLocks, true); err != nil {
		return base, nil, fmt.Errorf("%s, where runs hold their launcher uids: %w", runUIDLocks, err)
	}
	n := runUIDs[1] - runUIDs[0] + 1
	start := rand.IntN(n)
	taken, err := takenIDs()
	if err != nil {
		return base, nil, err
	}
	for i := 0; i < n; i++ {
		uid := runUIDs[0] + (start+i)%n
		if taken[uid] {
			continue
		}
		unlock, err := take(uid)
		if err != nil {
			return base, nil, err
		}
		if unlock == nil {
			continue
		}
		id = base
		id.Uid, id.Gid, id.PerRun = uid, uid, true
		// What a run of this uid that crashed left in the shared folders is no later run's.
		if _, err := sweepLeft(id); err != nil {
			unlock()
			return base, nil, err
		}
		return id, func() (leaks, left []string) {
			defer unlock()
			// What the run's own sweep did not end escaped it: each is a leak.
			for _, l := range killAll(id) {
				leaks = append(leaks, fmt.Sprintf("of the run's uid %d after the sweep: %s", id.Uid, l))
			}
			left, err := sweepLeft(id)
			if err != nil {
				left = append(left, err.Error())
			}
			return leaks, left
		}, nil
	}
	return base, nil, fmt.Errorf("no uid in %d-%d is free for this run's launcher (each is held by another run, systemd or an account, or a process has it); end a run, or set %s to one uid for every run",
		runUIDs[0], runUIDs[1], contract.LauncherUIDEnv)
}

// take holds uid for this run if no one has it: not systemd, no other run (its lock), no process.
// unlock is nil for a uid someone has.
func take(uid int) (unlock func(), err error) {
	if _, err := os.Lstat(filepath.Join("/run/systemd/dynamic-uid", strconv.Itoa(uid))); err == nil {
		return nil, nil
	}
	unlock, ok, err := files.TryLock(filepath.Join(runUIDLocks, strconv.Itoa(uid)))
	if err != nil || !ok {
		return nil, err
	}
	if busy, err := uidBusy(uid, true); err != nil || len(busy) > 0 {
		unlock()
		return nil, err
	}
	return unlock, nil
}

// takenIDs are the uids and gids /etc/passwd and /etc/group give an account or a group.
func takenIDs() (map[int]bool, error) {
	taken := map[int]bool{}
	for _, db := range []string{"/etc/passwd", "/etc/group"} {
		f, err := os.Open(db)
		if errors.Is(err, os.ErrNotExist) {
			continue
		} else if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if f := strings.Split(sc.Text(), ":"); len(f) > 2 {
				if id, err := strconv.Atoi(f[2]); err == nil {
					taken[id] = true
				}
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("reading %s: %w", db, err)
		}
	}
	return taken, nil
}

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
		if f := proctable.StatusFields(status, "State:"); len(f) > 0 && f[0] == "Z" {
			h.zombie = true
		}
		if f := proctable.StatusFields(status, "Threads:"); len(f) > 0 {
			h.threads, _ = strconv.Atoi(f[0])
		}
		if f := proctable.StatusFields(status, "VmRSS:"); len(f) > 0 {
			kb, _ := strconv.ParseUint(f[0], 10, 64)
			h.rss = kb << 10
		}
		out = append(out, h)
	}
	return out, nil
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

// killAll kills every process of id's uid, as that uid, until none is left (a fork storm races
// the first kill), and names each it found ("pid N [args]").
func killAll(id Identity) []string {
	var leaks []string
	seen := map[int]bool{}
	for round := 0; round < 50; round++ {
		busy, err := uidBusy(id.Uid, false)
		if err != nil {
			return append(leaks, fmt.Sprintf("listing the processes of uid %d: %v", id.Uid, err))
		}
		if len(busy) == 0 {
			break
		}
		for _, pid := range busy {
			if !seen[pid] {
				seen[pid] = true
				if args, err := proctable.Args(pid); err == nil {
					leaks = append(leaks, fmt.Sprintf("pid %d %q", pid, args))
				}
			}
		}
		_ = actas.DoAsProcess(id.Uid, id.Gid, func() error { return syscall.Kill(-1, syscall.SIGKILL) })
		time.Sleep(time.Duration(round+1) * 10 * time.Millisecond) // the kernel reaps the killed
	}
	sort.Strings(leaks)
	return leaks
}

// sweepLeft removes, as id's user, what it owns at the top of the temp folders, of /dev/shm and
// /dev/mqueue, and its System V shared memory segments (memory, for as long as the machine runs),
// and names each.
func sweepLeft(id Identity) ([]string, error) {
	left := sweepShm(id)
	for _, dir := range []string{os.TempDir(), "/var/tmp", "/dev/shm", "/dev/mqueue"} {
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			p := filepath.Join(dir, e.Name())
			fi, err := os.Lstat(p)
			if err != nil || ownerOf(fi) != id.Uid {
				continue
			}
			err = actas.DoAsProcess(id.Uid, id.Gid, func() error { return os.RemoveAll(p) })
			if err != nil {
				left = append(left, fmt.Sprintf("%s (uid %d's; not removed: %v)", p, id.Uid, err))
			} else {
				left = append(left, fmt.Sprintf("%s (uid %d's; removed)", p, id.Uid))
			}
		}
	}
	return left, nil
}

// Bound limits the launcher processes this process starts (they inherit its limits): the size of
// a file each may write (RLIMIT_FSIZE), and, where they run as a uid of the run's own (PerRun),
// how many processes and threads they may have (RLIMIT_NPROC, which the kernel counts per uid:
// kernel/fork.c, copy_process, fails a fork past it with EAGAIN; kernel/cred.c, set_user, and
// fs/exec.c fail the exec of a setuid to a uid past it). With a uid no one else has the count is
// exactly the run's; a uid shared with others is left without it, as their processes would count.
// Root is never counted (INIT_USER), so the kit's own processes are not bound by it.
func (id Identity) Bound() error {
	l, err := LauncherLimits(1) // the CLI named all three
	if err != nil {
		return err
	}
	if err := unix.Setrlimit(unix.RLIMIT_FSIZE, &unix.Rlimit{Cur: l.FileBytes, Max: l.FileBytes}); err != nil {
		return fmt.Errorf("setrlimit(RLIMIT_FSIZE, %d): %w", l.FileBytes, err)
	}
	if !id.PerRun {
		return nil
	}
	if err := unix.Setrlimit(unix.RLIMIT_NPROC, &unix.Rlimit{Cur: l.Procs, Max: l.Procs}); err != nil {
		return fmt.Errorf("setrlimit(RLIMIT_NPROC, %d): %w", l.Procs, err)
	}
	return nil
}

// Watch samples what id's uid holds every interval until stop is called: where the uid is the
// run's own (PerRun), all of it is the run's launcher's. Past l.MemoryBytes every process of the
// uid is killed (as that uid) and a line says so; a count of processes and threads at l.Procs
// says the run hit that bound (the kernel refused its forks). stop gives the peak and those lines,
// each a reason the run fails. Elsewhere it watches nothing.
func (id Identity) Watch(l Limits, interval time.Duration) (stop func() (Peak, []string)) {
	if !id.PerRun {
		return func() (Peak, []string) { return Peak{}, nil }
	}
	done, ended := make(chan struct{}), make(chan struct{})
	var peak Peak
	var over []string
	atProcs := false // said once
	start := time.Now()
	sample := func() {
		tasks, rss := uidHolds(id.Uid)
		peak.Tasks, peak.RSSBytes = max(peak.Tasks, tasks), max(peak.RSSBytes, rss)
		at := time.Since(start).Round(time.Second)
		if rss > l.MemoryBytes {
			killed := killAll(id)
			over = append(over, fmt.Sprintf("the launcher's processes (uid %d) held %s of memory %v into the run, past its bound of %s (memory= in $%s): killed: %s",
				id.Uid, Size(rss), at, exact(l.MemoryBytes), contract.LauncherLimitsEnv, strings.Join(killed, "; ")))
		}
		// At the bound, give or take what forked or ended between the kernel's refusal and
		// the sample: the kernel refused a fork there, which nothing else records.
		if uint64(tasks)+max(2, l.Procs/64) > l.Procs && !atProcs {
			atProcs = true
			over = append(over, fmt.Sprintf("the launcher's processes (uid %d) reached their bound of %d processes and threads %v into the run (%d seen; RLIMIT_NPROC, procs= in $%s): the kernel refuses forks past it",
				id.Uid, l.Procs, at, tasks, contract.LauncherLimitsEnv))
		}
	}
	go func() {
		defer close(ended)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				sample()
			}
		}
	}()
	return func() (Peak, []string) {
		close(done)
		<-ended
		return peak, over
	}
}

// uidHolds counts the living processes and threads whose real uid is uid, and sums their
// resident memory.
func uidHolds(uid int) (tasks int, rss uint64) {
	procs, _ := uidProcs(uid)
	for _, p := range procs {
		if p.real && !p.zombie {
			tasks, rss = tasks+p.threads, rss+p.rss
		}
	}
	return tasks, rss
}

// sweepShm removes, as id's user, the System V shared memory segments its uid owns
// (/proc/sysvipc/shm: key, shmid, perms, size, cpid, lpid, nattch, uid, ...), and names each: a
// segment outlives every process, as a file in /dev/shm does.
func sweepShm(id Identity) []string {
	b, err := files.ReadClaim("/proc/sysvipc/shm", 16<<20)
	if err != nil {
		return nil
	}
	var left []string
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 8 || f[7] != strconv.Itoa(id.Uid) {
			continue
		}
		shmid, err := strconv.Atoi(f[1])
		if err != nil {
			continue
		}
		err = actas.DoAsProcess(id.Uid, id.Gid, func() error {
			_, err := unix.SysvShmCtl(shmid, unix.IPC_RMID, nil)
			return err
		})
		what := fmt.Sprintf("System V shared memory segment %d, %s bytes (uid %d's; ", shmid, f[3], id.Uid)
		if err != nil {
			left = append(left, what+"not removed: "+err.Error()+")")
		} else {
			left = append(left, what+"removed)")
		}
	}
	return left
}
