package oracle

import (
	"strings"
	"testing"

	"github.com/classproof/classproof/fixtures/ps"
)

// FuzzParsePS: ps output is read, never trusted to be well formed. Whatever it holds, the parser
// returns observations it can account for or an error, and never panics.
func FuzzParsePS(f *testing.F) {
	f.Add("linux", ps.MustRead(f, "linux-cls-ni-pri.txt"))
	f.Add("darwin", ps.MustRead(f, "darwin-pid-pri-nice.txt"))
	f.Add("linux", []byte("  7 IDL - 19\n\n 8 TS 0\n"))
	f.Add("darwin", []byte("512 4 0 Ss\r\n+513 31 0 S\n"))
	f.Fuzz(func(t *testing.T, goos string, out []byte) {
		obs, err := ParsePS(goos, out)
		if err != nil {
			if len(obs) != 0 {
				t.Fatalf("an error (%v) and %d observations", err, len(obs))
			}
			return
		}
		for pid, o := range obs {
			if o.Pid != pid || o.GOOS != goos {
				t.Fatalf("observation keyed %d reads pid %d on %q (asked %q)", pid, o.Pid, o.GOOS, goos)
			}
			if o.PS == "" || o.PS != strings.TrimSpace(o.PS) || !strings.Contains(string(out), o.PS) {
				t.Fatalf("observation of pid %d quotes %q, which is not a trimmed line of the output", pid, o.PS)
			}
			if len(strings.Fields(o.PS)) != 4 {
				t.Fatalf("observation of pid %d from a line of %d fields: %q", pid, len(strings.Fields(o.PS)), o.PS)
			}
		}
	})
}

// FuzzParseAutogroup: /proc/PID/autogroup is read from a process the launcher started.
func FuzzParseAutogroup(f *testing.F) {
	f.Add(ps.MustRead(f, "linux-autogroup.txt"))
	f.Add(ps.MustRead(f, "linux-autogroup-default.txt"))
	f.Add([]byte("/autogroup-1 nice x"))
	f.Fuzz(func(t *testing.T, b []byte) {
		name, nice, err := ParseAutogroup(b)
		if err != nil {
			return
		}
		if name == "" && (nice != 0 || strings.TrimSpace(string(b)) != "") {
			t.Fatalf("%q read as the default autogroup with nice %d", b, nice)
		}
		if name != "" && !strings.Contains(string(b), name) {
			t.Fatalf("%q read as autogroup %q", b, name)
		}
	})
}
