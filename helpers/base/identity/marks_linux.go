package identity

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/classproof/classproof/helpers/base/files"
)

// The marks a run leaves on a uid of the pool, beside its lock in runUIDLocks: clean (the next
// run takes it with no sweep) or kept (no run takes it until an operator releases it).

// readyToTake sweeps what an earlier holder of id's uid left in the shared folders, unless that
// run let go of it clean (its sweep found nothing to fail on, and no process of the uid can have
// run since: it had none, and no door into it was left). A run that crashed before its sweep
// left no such mark. false: something was left that cannot be removed, and the uid is now kept
// out of the runs' uids.
func readyToTake(id Identity) (bool, error) {
	if os.Remove(cleanFile(id.Uid)) == nil {
		return true, nil
	}
	s, err := sweepLeft(id)
	if err != nil {
		return false, err
	}
	if s.keep {
		return false, keepOut(id.Uid, s.failed)
	}
	return true, nil
}

// markedClean says whether uid's last run let go of it clean (cleanFile).
func markedClean(uid int) bool {
	_, err := os.Lstat(cleanFile(uid))
	return err == nil
}

// cleanFile marks a uid its last run let go of clean (readyToTake).
func cleanFile(uid int) string { return filepath.Join(runUIDLocks, strconv.Itoa(uid)+".clean") }

// markClean marks uid let go of clean; a mark not written costs the next run a sweep, no more.
func markClean(uid int) { _ = files.WriteFile(cleanFile(uid), nil, 0o600) }

// keptFile is where a uid the sweep could not clear is kept out of the runs' uids, with why: no
// run takes it (take) until an operator has removed what it left and this file.
func keptFile(uid int) string { return filepath.Join(runUIDLocks, strconv.Itoa(uid)+".kept") }

// kept says whether uid is kept out of the runs' uids.
func kept(uid int) bool {
	_, err := os.Lstat(keptFile(uid))
	return err == nil
}

// keepOut keeps uid out of the runs' uids, writing why.
func keepOut(uid int, why []string) error {
	if err := files.WriteFile(keptFile(uid), []byte(strings.Join(why, "\n")+"\n"), 0o600); err != nil {
		return fmt.Errorf("keeping uid %d, which left what the sweep could not remove, out of the runs' uids: %w", uid, err)
	}
	return nil
}
