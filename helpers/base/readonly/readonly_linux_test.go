package readonly

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A root kit makes a folder read-only for the launcher's user by its mode, as that user: no
// bind mount (which a container without CAP_SYS_ADMIN refuses), and undo gives the mode back.
func TestMakeDecidesByTheLaunchersUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skipf("needs a root kit and another user; runs as uid %d", os.Geteuid())
	}
	const nobody = 65534
	dir := filepath.Join(t.TempDir(), "cfg")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// t.TempDir's folders are root's alone: the user must pass through to its own.
	// Up to, not including, the temp folder: TMPDIR may end in "/" (macOS's does), which a
	// comparison with os.TempDir() never meets, and the temp folder itself is not the test's.
	top := filepath.Clean(os.TempDir()) + string(filepath.Separator)
	for p := filepath.Dir(dir); strings.HasPrefix(p, top); p = filepath.Dir(p) {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chown(dir, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	if err := Check(dir, nobody, nobody); err == nil {
		t.Fatal("Check says the user's own 0755 folder is read-only for it")
	}
	undo, err := Make(dir, nobody, nobody)
	if err != nil {
		t.Fatalf("Make: %v", err)
	}
	if err := Check(dir, nobody, nobody); err != nil {
		t.Errorf("after Make: %v", err)
	}
	if err := undo(); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o755 {
		t.Errorf("undo left mode %v, expected 0755", fi.Mode().Perm())
	}

	// A folder the user does not own but may write: it cannot be made read-only for it, said.
	open := filepath.Join(filepath.Dir(dir), "open")
	if err := os.Mkdir(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := Make(open, nobody, nobody); err == nil {
		t.Error("Make on root's 0777 folder succeeded for uid 65534, which may still write it")
	}
}
