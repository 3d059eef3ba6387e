package proc

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// otherUID acts as the launcher's user: nobody, outside the pool runs are handed (61184-65519).
const otherUID = 65534

// A sealed ledger, owned by the launcher's user as the runner hands it out, takes that user's
// appends and refuses its truncation and its overwrite at offset 0: the record of a harness the
// launcher killed cannot be erased (issue 68). The control: the same probes, before the seal,
// rewrite the ledger, so the refusals are the flag's.
func TestSealedLedgerTakesAnotherUsersAppendsOnly(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: to act as another uid and to set FS_APPEND_FL (CAP_LINUX_IMMUTABLE)")
	}
	path := ledgerOf(t, otherUID)
	if out, err := asUser(otherUID, `printf 'erased\n' 1<> "$1"`, path); err != nil {
		t.Fatalf("control: uid %d could not overwrite its unsealed ledger %s: %v %s", otherUID, path, err, out)
	}
	const line = `{"role":"harness (self-recorded)","pid":1}` + "\n"
	if err := os.WriteFile(path, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := SealLedger(path); err != nil {
		t.Skipf("the flag cannot be set here (the run says so in run.json): %v", err)
	}
	t.Cleanup(func() { _ = UnsealLedger(path) }) // t.TempDir's RemoveAll cannot remove it sealed
	for _, probe := range []string{`: > "$1"`, `printf 'erased\n' 1<> "$1"`, `truncate -s 0 "$1"`} {
		if out, err := asUser(otherUID, probe, path); err == nil {
			t.Errorf("uid %d ran %s on the sealed ledger %s: no error (%s); want the kernel's refusal (EPERM)", otherUID, probe, path, out)
		}
	}
	if out, err := asUser(otherUID, `printf 'appended\n' >> "$1"`, path); err != nil {
		t.Errorf("uid %d could not append to the sealed ledger %s: %v %s", otherUID, path, err, out)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != line+"appended\n" {
		t.Errorf("the sealed ledger now holds %q (%v); want %q", b, err, line+"appended\n")
	}
	if err := UnsealLedger(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Errorf("removing the unsealed ledger: %v", err)
	}
}

// ledgerOf makes a ledger handed to uid, in a folder uid can pass through (t.TempDir's two
// levels are 0700).
func ledgerOf(t *testing.T, uid int) string {
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o711); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "pids.ledger")
	if err := NewLedger(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(path, uid, uid); err != nil {
		t.Fatal(err)
	}
	return path
}

// asUser runs the shell script as uid, with path as $1.
func asUser(uid int, script, path string) (string, error) {
	cmd := exec.Command("/bin/sh", "-c", script, "sh", path)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid), Groups: []uint32{}}}
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}
