package actas

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// The user's own read-only folder (chmod -R a-w, Go's module cache) is the user's to make
// writable: RemoveAll as the user removes it and what is in it, and says nothing failed.
func TestRemoveAllRemovesTheUsersReadOnlyFolders(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("acts as another uid: root only")
	}
	const uid = 64101
	top := filepath.Join("/dev/shm", "classproof-ro-"+time.Now().Format("150405.000000000"))
	t.Cleanup(func() { exec.Command("chmod", "-R", "u+rwx", top).Run(); os.RemoveAll(top) })
	sh := exec.Command("sh", "-c", `mkdir -p "$1/sub/deeper" && echo x > "$1/sub/f" && echo y > "$1/sub/deeper/g" && chmod 0 "$1/sub/deeper" && chmod 0555 "$1/sub" "$1"`, "sh", top)
	sh.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid, Groups: []uint32{}}}
	if out, err := sh.CombinedOutput(); err != nil {
		t.Fatal(err, string(out))
	}
	failed, err := Child(uid, uid, 30*time.Second, RemoveAll, top)
	if _, serr := os.Lstat(top); err != nil || len(failed) != 0 || serr == nil {
		t.Errorf("RemoveAll of uid %d's read-only %s: failed %q, error %v, still there: %v; want it gone, nothing failed", uid, top, failed, err, serr == nil)
	}
}
