package confine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The Seatbelt profile denies every write and every hard link, then allows both below the
// launcher's folders alone (a single file it may write is no folder to link in), the allows after
// the denies, as Seatbelt applies the last rule that matches. Compiled, not run on macOS: this
// checks the text the kit hands sandbox-exec.
func TestTheSeatbeltProfileDeniesLinksButBelowItsFolders(t *testing.T) {
	got := seatbeltProfile(Policy{Dirs: []string{"/w/a\"b"}, Files: []string{"/w/ledger"}}, []string{"/dev"})
	want := `(version 1)
(allow default)
(deny file-write*)
(deny file-link)
(allow file-write*
  (subpath "/w/a\"b")
  (subpath "/dev")
  (literal "/w/ledger")
  (literal "/dev/null")
  (literal "/dev/zero")
  (literal "/dev/full")
  (literal "/dev/tty")
  (literal "/dev/ptmx"))
(allow file-link
  (subpath "/w/a\"b")
  (subpath "/dev"))
`
	// Each path as it really is where the profile is made (realPath): in a container /dev/ptmx
	// is a symlink to pts/ptmx; on macOS, where the profile is used, it is the device.
	want = strings.Replace(want, `"/dev/ptmx"`, sbplQuote(realPath("/dev/ptmx")), 1)
	if got != want {
		t.Errorf("the profile:\n%s\nwant:\n%s", got, want)
	}
	if strings.Index(got, "(deny file-link)") > strings.Index(got, "(allow file-link") {
		t.Error("the allow of file-link comes before its deny: the deny would win everywhere")
	}
}

// Seatbelt matches the resolved path, so a rule names it resolved even for a folder that does not
// exist yet: below a symlink (macOS's /tmp is /private/tmp) the part that exists is resolved and
// the rest joined on, as Landlock's rules are (issue 67: such a rule kept the path as written,
// and no write below it matched).
func TestASeatbeltRuleForAPathNotMadeYetIsResolved(t *testing.T) {
	top, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(top, "private-tmp")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(top, "tmp")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	got := seatbeltProfile(Policy{Dirs: []string{filepath.Join(link, "cache", "new")}, Files: []string{filepath.Join(link, "ledger")}}, nil)
	for _, want := range []string{`(subpath "` + filepath.Join(real, "cache", "new") + `")`, `(literal "` + filepath.Join(real, "ledger") + `")`} {
		if !strings.Contains(got, want) {
			t.Errorf("the profile has no %s:\n%s", want, got)
		}
	}
}
