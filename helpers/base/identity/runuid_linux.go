package identity

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/classproof/classproof/helpers/base/confine"
	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/files"
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
// ForBuild, and release does nothing.
//
// release ends the run's hold: every process of the uid still alive is killed (as that uid, in
// a process of its own: kill(2) with pid -1 reaches exactly the processes it may signal) and each
// named; what the uid left in the shared folders and its System V IPC objects are removed
// (likewise) and named (sweepLeft). failed are the reasons the run fails there: a setuid or
// setgid file of the uid, and what could not be removed, in which case the uid is kept out of
// every later run (keepOut) until an operator releases it. The caller reports all three; it calls
// release after its own sweep.
func ForRun() (id Identity, release func() (leaks, left, failed []string), err error) {
	base := ForBuild()
	if err := Check(); err != nil || contract.Current().LauncherUID != "" || !base.Other() {
		return base, func() ([]string, []string, []string) { return nil, nil, nil }, err
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
	// Two passes: first the uids whose last run let go of them clean, which need no sweep of the
	// shared folders to be taken (readyToTake), then any.
	for i := 0; i < 2*n; i++ {
		uid := runUIDs[0] + (start+i)%n
		if taken[uid] || (i < n && !markedClean(uid)) {
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
		if ok, err := readyToTake(id); err != nil || !ok {
			unlock()
			if err != nil {
				return base, nil, err
			}
			continue
		}
		if !writesConfined() {
			// Kept before the launcher starts, so that a run that crashes keeps it out too.
			if err := keepOut(uid, []string{unconfined(uid)}); err != nil {
				unlock()
				return base, nil, err
			}
		}
		return id, releaser(id, unlock), nil
	}
	return base, nil, poolDry()
}

// unconfined says why a uid whose launcher's writes no sandbox confined is kept out: it may have
// left a setuid file anywhere it could write (/var/crash is 1777 on Ubuntu), where no sweep of
// the shared folders looks, and the kit cannot walk every folder of the machine at each run.
func unconfined(uid int) string {
	return fmt.Sprintf("uid %d is kept out of the runs' uids: its launcher's writes were not confined (sandbox: %s), so it may have left a file anywhere it could write, which no sweep of %s sees; release it as docs/containment.md says (\"A run uid kept out\")", uid, confine.Current(), strings.Join(sharedRoots(), ", "))
}

// poolDry is ForRun's error when no uid of the range is free, naming the ones kept out and the
// operator's release for them: a pool that ran dry of kept uids never fails in silence.
func poolDry() error {
	var keptOut []int
	for uid := runUIDs[0]; uid <= runUIDs[1]; uid++ {
		if kept(uid) {
			keptOut = append(keptOut, uid)
		}
	}
	why := fmt.Sprintf("no uid in %d-%d is free for this run's launcher (each is held by another run, systemd or an account, or a process has it); end a run, or set %s to one uid for every run",
		runUIDs[0], runUIDs[1], contract.LauncherUIDEnv)
	if len(keptOut) > 0 {
		why += fmt.Sprintf("; %d of them are kept out (what a run of theirs left, or a launcher whose writes no sandbox confined): each says why in %s, and an operator releases it by removing what it left and then that file (docs/containment.md, \"A run uid kept out\"), e.g. cat %s; rm %s",
			len(keptOut), keptFile(keptOut[0]), keptFile(keptOut[0]), keptFile(keptOut[0]))
	}
	return errors.New(why)
}

// releaser is ForRun's release for id, which the run holds until unlock.
func releaser(id Identity, unlock func()) func() (leaks, left, failed []string) {
	return func() (leaks, left, failed []string) {
		defer unlock()
		if systemdHas(id.Uid) {
			// systemd gave the uid to a service while the run held it: what has it now is
			// not the run's alone, and a system service is not the kit's to kill.
			return []string{fmt.Sprintf("uid %d, the run's own, was given by systemd to a DynamicUser= service during the run (/run/systemd/dynamic-uid/%d): what still has it was not killed, and the run cannot say its launcher left nothing", id.Uid, id.Uid)}, nil, nil
		}
		// What the run's own sweep did not end escaped it: each is a leak.
		for _, l := range id.KillAll() {
			leaks = append(leaks, fmt.Sprintf("of the run's uid %d after the sweep: %s", id.Uid, l))
		}
		s, err := sweepLeft(id)
		if err != nil {
			s.failed, s.keep = append(s.failed, err.Error()), true
		}
		confined := writesConfined()
		if s.keep {
			why := s.failed
			if !confined {
				why = append(why, unconfined(id.Uid))
			}
			if err := keepOut(id.Uid, why); err != nil {
				s.failed = append(s.failed, err.Error())
			}
			s.failed = append(s.failed, fmt.Sprintf("uid %d is kept out of the runs' uids until what it left is removed and %s with it (docs/containment.md, \"A run uid kept out\")", id.Uid, keptFile(id.Uid)))
		} else if !confined {
			// ForRun kept it out already; said, not failed: a correct launcher run without a
			// sandbox leaves nothing.
			s.left = append(s.left, unconfined(id.Uid))
		} else if survivors, err := uidBusy(id.Uid, true); len(s.failed) == 0 && err == nil && len(survivors) == 0 {
			// Clean only with nothing of the uid alive: a survivor could write a door after
			// the sweep, and the next run skips the sweep of a clean uid.
			markClean(id.Uid)
		}
		return leaks, s.left, s.failed
	}
}

// take holds uid for this run if no one has it: not systemd, no other run (its lock), no process.
// unlock is nil for a uid someone has.
func take(uid int) (unlock func(), err error) {
	if systemdHas(uid) || accountHas(uid) || kept(uid) {
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

// systemdHas says whether systemd holds uid for a DynamicUser= service (a lock file named by the
// number: src/core/dynamic-user.c).
func systemdHas(uid int) bool {
	_, err := os.Lstat(filepath.Join("/run/systemd/dynamic-uid", strconv.Itoa(uid)))
	return err == nil
}

// accountHas says whether the system's user and group databases (NSS: LDAP, sssd, systemd's own,
// not only /etc/passwd) give uid to an account or a group, as getent(1) answers.
func accountHas(uid int) bool {
	for _, db := range []string{"passwd", "group"} {
		if err := exec.Command("getent", db, strconv.Itoa(uid)).Run(); err == nil {
			return true
		}
	}
	return false
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

// writesConfined says whether the run's launcher processes wrote only where the kit's sandbox
// allowed (a test swaps it).
var writesConfined = func() bool { return confine.Current().On() }
