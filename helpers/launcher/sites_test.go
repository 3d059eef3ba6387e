package launcher

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/identity"
	"github.com/classproof/classproof/helpers/manifest"
)

// What the launcher recorded is read as a claim: each line a site's name, counted; a record
// that is gone, is not a regular file, is too long or holds anything else counts as every site,
// and the error names the file, the line and what is accepted. Without sites asked for, nothing
// is read and the launcher's env names no file.
func TestSitesAreReadAsAClaim(t *testing.T) {
	// As a run has it: the instance's run folder is the launcher's, and the kit reads the record
	// as the launcher's user (a root kit's is another: the record is read as that user).
	id := identity.Launcher()
	dir := reachableBin(t)
	if err := os.Chmod(dir, 0o711); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "run"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := id.Give(filepath.Join(dir, "run")); err != nil {
		t.Fatal(err)
	}
	l := &Instance{d: &Driver{Manifest: &manifest.Manifest{Name: "t", SitesEnv: "T_SITES"}, RunsAs: id}, Dir: dir}
	t.Setenv(contract.SitesEnv, "on")
	write := func(s string) {
		t.Helper()
		_ = os.Remove(l.sitesFile())
		if err := os.WriteFile(l.sitesFile(), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := id.Give(l.sitesFile()); err != nil { // as the launcher wrote it
			t.Fatal(err)
		}
	}
	write("") // as privateDir makes it
	if got, err := l.Sites(); err != nil || got == nil || len(got) != 0 {
		t.Errorf("an empty record (no site reached): %v, %v; want an empty map", got, err)
	}
	if env := l.sitesEnv(); len(env) != 1 || env["T_SITES"] != l.sitesFile() {
		t.Errorf("the launcher's env: %v; want T_SITES at the instance's sites file", env)
	}
	write("launch\nkeySegment\nlaunch\n")
	if got, err := l.Sites(); err != nil || len(got) != 2 || got["launch"] != 2 || got["keySegment"] != 1 {
		t.Errorf("two sites: %v, %v", got, err)
	}
	_ = os.Remove(l.sitesFile())
	if got, err := l.Sites(); err == nil || !strings.Contains(err.Error(), "is gone") || got[EverySite] != 1 {
		t.Errorf("a record the launcher removed: %v, %v; want every site", got, err)
	}
	for record, want := range map[string]string{
		"launch\nrm -rf /\n":                 `line 2: "rm -rf /": expected a site's name`,
		"\n":                                 `line 1: "": expected a site's name`,
		strings.Repeat("a", SitesBytes+1):    "over 1048576 bytes; refused",
		"launch\n" + strings.Repeat("b", 65): "line 2",
	} {
		write(record)
		got, err := l.Sites()
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "T_SITES") || len(got) != 1 || got[EverySite] != 1 {
			t.Errorf("record %.20q: %v, %v; want every site and an error with %q", record, got, err, want)
		}
	}
	_ = os.Remove(l.sitesFile())
	if err := os.Symlink("/etc/passwd", l.sitesFile()); err != nil {
		t.Fatal(err)
	}
	if got, err := l.Sites(); err == nil || !strings.Contains(err.Error(), "symlink; refused") || got[EverySite] != 1 {
		t.Errorf("a symlink: %v, %v; want it refused, counted as every site", got, err)
	}
	t.Setenv(contract.SitesEnv, "")
	if got, err := l.Sites(); got != nil || err != nil {
		t.Errorf("sites not asked for: %v, %v; want nothing read", got, err)
	}
	if env := l.sitesEnv(); env != nil {
		t.Errorf("sites not asked for, yet the launcher's env has %v", env)
	}
}
