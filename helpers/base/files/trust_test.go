package files

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTrustedPath(t *testing.T) {
	base := t.TempDir()
	if err := TrustedPath(base); err != nil {
		t.Fatalf("a fresh temp folder of our own: %v", err)
	}
	if err := TrustedPath(filepath.Join(base, "not", "made", "yet")); err != nil {
		t.Errorf("a folder the kit will make under a trusted one: %v", err)
	}
	ww := filepath.Join(base, "ww")
	must(t, os.Mkdir(ww, 0o755))
	must(t, os.Chmod(ww, 0o777))
	sub := filepath.Join(ww, "sub")
	must(t, os.Mkdir(sub, 0o700))
	if err := TrustedPath(sub); err == nil || !strings.Contains(err.Error(), ww+" is writable by others") {
		t.Errorf("ww/sub under a 0777 ww: %v", err)
	}
	sticky := filepath.Join(base, "sticky")
	must(t, os.Mkdir(sticky, 0o755))
	must(t, os.Chmod(sticky, 0o777|os.ModeSticky))
	if err := TrustedPath(filepath.Join(sticky, "mine")); err != nil {
		t.Errorf("under a sticky folder of ours (as /tmp): %v", err)
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a folder to another user")
	}
	theirs := filepath.Join(base, "theirs")
	must(t, os.Mkdir(theirs, 0o755))
	must(t, os.Chown(theirs, 12345, 12345))
	if err := TrustedPath(filepath.Join(theirs, "cache")); err == nil || !strings.Contains(err.Error(), theirs+" is owned by uid 12345") {
		t.Errorf("a folder another user made: %v", err)
	}
	link := filepath.Join(base, "link")
	must(t, os.Symlink(base, link))
	must(t, os.Lchown(link, 12345, 12345))
	if err := TrustedPath(filepath.Join(link, "x")); err == nil || !strings.Contains(err.Error(), link+" is owned by uid 12345") {
		t.Errorf("a symlink another user owns, on the way: %v", err)
	}
	good := filepath.Join(base, "good")
	must(t, os.Symlink(theirs, good))
	if err := TrustedPath(filepath.Join(good, "x")); err == nil || !strings.Contains(err.Error(), "owned by uid 12345") {
		t.Errorf("our symlink into another user's folder: %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
