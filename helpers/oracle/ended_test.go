package oracle

import (
	"strings"
	"testing"
)

// On macOS ps shows a process on its way out with E among its flags (P_WEXIT), and a zombie with
// Z: neither proves a class, and a darwinbg process being killed reads raised (exit sets
// TASK_POLICY_TERMINATED first). The oracle said so of Z alone (issue 67); a running process
// with any other flags (a session leader, a foreground group, a nice one) is read as it is.
func TestADyingProcessProvesNoClassOnMacOS(t *testing.T) {
	rows, err := ParsePS("darwin", []byte("  601   4  0 RE\n  602  31  0 SE\n  603   0  0 Z\n  604   4  0 Ss\n  605  31  0 R+\n  606   4  5 SNs\n  607  31  0 TXE\n"))
	if err != nil {
		t.Fatal(err)
	}
	for pid, want := range map[int]string{601: "on its way out", 602: "on its way out", 603: "a zombie", 604: "", 605: "", 606: "", 607: "on its way out"} {
		got := psEnded(rows[pid].Stat)
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("pid %d, ps stat %q: %q, want %q", pid, rows[pid].Stat, got, want)
		}
	}
}
