package docs

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// docUID is the uid the docs' release of a kept run uid names (docs/containment.md, "A run uid
// kept out"); testUID stands for it here: far above any run uid (the pool ends below 65536) and
// any account a machine has, so the block's find -user touches nothing but what this test made.
const (
	docUID  = "61234"
	testUID = 3999123
)

// uidRelease runs the docs' release of a kept uid as root, for real, on what such a uid leaves: a
// read-only folder of its with a file in it, a setuid+setgid file, and the .kept file. The kept
// files' folder is a temporary one instead of /run/classproof/uid. The unconfined block walks
// every local file system (find / -xdev: 27 s on this project's machine), so here it walks a
// temporary tree instead of /: what it must show is what the uid left there.
func uidRelease(t *testing.T, b block, unconfined bool) {
	if os.Geteuid() != 0 {
		t.Skipf("%s: the release runs as root, as the docs say; this test runs as uid %d", b, os.Geteuid())
	}
	if !strings.Contains(b.text, "/run/classproof/uid/"+docUID+".kept") {
		t.Fatalf("%s: the release no longer names /run/classproof/uid/%s.kept, which this test stands in for", b, docUID)
	}
	uid := fmt.Sprint(testUID)
	keptDir := t.TempDir()
	text := strings.ReplaceAll(b.text, "/run/classproof/uid/", keptDir+"/")
	text = strings.ReplaceAll(text, docUID, uid)
	top := filepath.Join("/tmp", fmt.Sprintf("classproof-docs-release-%d", os.Getpid()))
	if unconfined {
		if !strings.Contains(text, "find / -xdev") {
			t.Fatalf("%s: the release no longer walks / -xdev, which this test stands in for", b)
		}
		walked := t.TempDir()
		top = filepath.Join(walked, "left")
		text = strings.ReplaceAll(text, "find / -xdev", "find "+walked+" -xdev")
	}
	door := filepath.Join(top, "door")
	kept := filepath.Join(keptDir, uid+".kept")
	t.Cleanup(func() { _ = exec.Command("chmod", "-R", "u+w", top).Run(); _ = os.RemoveAll(top) })
	left := `mkdir -p "$1/sub" && : > "$1/sub/f" && cp /bin/true "$1/door" && chown -R "$2:$2" "$1" && chmod 6755 "$1/door" && chmod 0555 "$1/sub" "$1"`
	if out, err := exec.Command("sh", "-c", left, "sh", top, uid).CombinedOutput(); err != nil {
		t.Fatalf("making what uid %s left: %v %s", uid, err, out)
	}
	if err := os.WriteFile(kept, []byte("its launcher's writes were not confined\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Not sh -e: find names a folder this machine lacks and goes on, as the docs say.
	out, _ := exec.Command("sh", "-c", text).CombinedOutput()
	if _, err := os.Stat(kept); !os.IsNotExist(err) {
		t.Errorf("%s: after the release, %s is still there (%v); the release printed:\n%s", b, kept, err, out)
	}
	if unconfined {
		if !strings.Contains(string(out), door) {
			t.Errorf("%s: the walk did not show %s, which uid %s left; it printed:\n%s", b, door, uid, out)
		}
		return
	}
	if _, err := os.Lstat(top); !os.IsNotExist(err) {
		t.Errorf("%s: after the release, %s (uid %s's read-only folder with a setuid file) is still there (%v); the release printed:\n%s", b, top, uid, err, out)
	}
}
