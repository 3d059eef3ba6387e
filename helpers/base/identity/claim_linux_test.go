package identity

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A launcher swaps its config folder for a symlink into a folder of root's alone: a root kit
// reading the config file as the launcher's user gets nothing of the secret there, not even in
// its error (issue 53: the secret was printed whole in the failure, report.json and junit.xml).
func TestReadClaimReadsOnlyWhatTheLaunchersUserMay(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skipf("needs a root kit, whose launcher is another user; runs as uid %d", os.Geteuid())
	}
	id := Identity{Uid: DefaultLauncherUID, Gid: DefaultLauncherUID, kit: 0}
	top := t.TempDir()
	for _, p := range []string{filepath.Dir(top), top} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	private := filepath.Join(top, "root-only")
	home := filepath.Join(top, "home")
	for _, d := range []string{private, home} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	const secret = "classproof-test-secret-42"
	if err := os.WriteFile(filepath.Join(private, "secret.json"), []byte(secret), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(home, id.Uid, id.Gid); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "own.json"), []byte(`{"ok":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(private, filepath.Join(home, "cfg")); err != nil {
		t.Fatal(err)
	}
	b, err := id.ReadClaim(filepath.Join(home, "cfg", "secret.json"), 1<<20)
	if err == nil || strings.Contains(string(b)+err.Error(), secret) {
		t.Fatalf("reading through the launcher's symlink into root's 0700 folder: %q, %v; expected permission denied and no byte of it", b, err)
	}
	if b, err := id.ReadClaim(filepath.Join(home, "own.json"), 1<<20); err != nil || string(b) != `{"ok":1}` {
		t.Fatalf("reading the launcher's own file: %q, %v", b, err)
	}
}
