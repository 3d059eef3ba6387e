package identity

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// asUserSh runs sh -c script as id's user with args, and fails the test on an error.
func asUserSh(t *testing.T, id Identity, script string, args ...string) {
	t.Helper()
	sh := exec.Command("sh", append([]string{"-c", script, "sh"}, args...)...)
	sh.SysProcAttr = &syscall.SysProcAttr{Credential: id.Credential()}
	if out, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("as uid %d: sh -c %q %q: %v %s", id.Uid, script, args, err, out)
	}
}

// A setuid+setgid copy of a binary, the uid's, is left where the uid cannot remove it: in a
// folder of root's at the top of /dev/shm (issue 68 had it in a 0555 folder of the uid's, which
// the uid now makes writable and removes; it was named under LEFT BEHIND, the run passed, the uid
// went back to the pool, and whoever ran the file later became that uid). Letting go of the uid
// fails the run naming the file with its mode, and keeps the uid from the next run until an
// operator removes what it left and its .kept file.
func TestASetuidFileOfTheRunsUidFailsTheRunAndKeepsTheUid(t *testing.T) {
	first := 63501
	forRunHere(t, first, first)
	id, release, err := ForRun()
	if err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join("/dev/shm", fmt.Sprintf("classproof-door-%d", os.Getpid()))
	door := filepath.Join(folder, "door")
	t.Cleanup(func() { os.Chmod(folder, 0o700); os.RemoveAll(folder) })
	// And one the uid can remove: named all the same.
	removable := filepath.Join("/dev/shm", fmt.Sprintf("classproof-door2-%d", os.Getpid()))
	t.Cleanup(func() { os.Remove(removable) })
	// The uid may make its own 0555 folder writable and remove it (actas.RemoveAll): what it
	// cannot remove is its file in a folder of another user's (here root's, 0755).
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("sh", "-c", `cp /bin/true "$1" && chown "$2:$2" "$1" && chmod 6755 "$1"`, "sh", door, fmt.Sprint(id.Uid)).CombinedOutput(); err != nil {
		t.Fatal(err, string(out))
	}
	asUserSh(t, id, `cp /bin/true "$1" && chmod 6755 "$1"`, removable)
	leaks, left, failed := release()
	said := strings.Join(failed, "\n")
	if len(leaks) != 0 || !strings.Contains(said, fmt.Sprintf("setuid+setgid file of the run's uid %d", id.Uid)) || !strings.Contains(said, fmt.Sprintf("%q (setuid+setgid file, mode 6755), not removed", door)) || !strings.Contains(said, keptFile(id.Uid)) || !strings.Contains(said, fmt.Sprintf("%q (setuid+setgid file, mode 6755), removed", removable)) {
		t.Errorf("release: leaks %q, left %q, failed %q; want failures naming %s (mode 6755, not removed) and %s (removed), and the uid kept (%s)", leaks, left, failed, door, removable, keptFile(id.Uid))
	}
	if again, releaseAgain, err := ForRun(); err == nil {
		releaseAgain()
		t.Fatalf("uid %d, whose setuid file %s is left, was taken by the next run (%v)", id.Uid, door, again)
	}
	// The operator's release (docs/containment.md, "A run uid kept out").
	if err := os.Chmod(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(folder); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(keptFile(id.Uid)); err != nil {
		t.Fatal(err)
	}
	again, releaseAgain, err := ForRun()
	if err != nil || again.Uid != id.Uid {
		t.Fatalf("after the operator's release, uid %d was not free: %v, %v", id.Uid, again, err)
	}
	if _, _, failed := releaseAgain(); len(failed) != 0 {
		t.Errorf("a run of uid %d that left nothing failed: %q", id.Uid, failed)
	}
}

// What the uid leaves deeper than the top of a shared folder (in a 1777 folder of another user's)
// is found and removed too; a symlink of its pointing into a root-only folder is removed, never
// followed; neither fails the run nor keeps the uid.
func TestReleaseRemovesWhatTheUidLeftBelowTheTop(t *testing.T) {
	first := 63601
	forRunHere(t, first, first)
	id, release, err := ForRun()
	if err != nil {
		t.Fatal(err)
	}
	shared := filepath.Join("/dev/shm", fmt.Sprintf("classproof-shared-%d", os.Getpid()))
	if err := os.Mkdir(shared, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(shared) })
	if err := os.Chmod(shared, os.ModeSticky|0o777); err != nil {
		t.Fatal(err)
	}
	rootOnly := t.TempDir()
	precious := filepath.Join(rootOnly, "precious")
	if err := os.WriteFile(precious, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	deep, link := filepath.Join(shared, "deep"), filepath.Join(shared, "link")
	asUserSh(t, id, `echo x > "$1" && ln -s "$3" "$2"`, deep, link, rootOnly)
	leaks, left, failed := release()
	if len(leaks) != 0 || len(failed) != 0 || !strings.Contains(strings.Join(left, "\n"), fmt.Sprintf("%q (uid %d's; removed)", deep, id.Uid)) {
		t.Errorf("release: leaks %q, left %q, failed %q; want %s named as removed, nothing failed", leaks, left, failed, deep)
	}
	for _, p := range []string{deep, link} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s of uid %d is still there after its release", p, id.Uid)
		}
	}
	if _, err := os.Stat(precious); err != nil {
		t.Errorf("%s, behind the uid's symlink %s: %v", precious, link, err)
	}
	again, releaseAgain, err := ForRun()
	if err != nil || again.Uid != id.Uid {
		t.Fatalf("uid %d, which left only what the sweep removed, was not free again: %v, %v", id.Uid, again, err)
	}
	releaseAgain()
}
