package sandbox

import (
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
	if got != want {
		t.Errorf("the profile:\n%s\nwant:\n%s", got, want)
	}
	if strings.Index(got, "(deny file-link)") > strings.Index(got, "(allow file-link") {
		t.Error("the allow of file-link comes before its deny: the deny would win everywhere")
	}
}
