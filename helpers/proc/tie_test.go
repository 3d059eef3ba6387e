package proc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A ledger line or a harness report is a claim: the kit signals only what it can tie to the run.
func TestTiedByTheRule(t *testing.T) {
	const me, token = 1000, "cp-0123"
	mine := []int{me, 900, 1} // the kit, its parent (a shell), init
	words := map[int]string{
		40: "sleep\x0030\x00HOME=/root\x00",                         // a stranger
		41: "harness\x00--report\x00r.json\x00--run\x00cp-0123\x00", // the token as an argument
		42: "daemon\x00PATH=/bin\x00CLASSPROOF_RUN=cp-0123\x00",     // in the environment
		43: "sleep\x00CLASSPROOF_RUN=cp-9999\x00",                   // another run's token
		44: "harness\x00--run\x00cp-01234\x00",                      // a token with the run's as a prefix
	}
	identity := func(pid int) ([]byte, error) {
		if w, ok := words[pid]; ok {
			return []byte(w), nil
		}
		return nil, errors.New("gone")
	}
	for _, c := range []struct {
		name  string
		pid   int
		chain []int
		want  string // "" when tied
	}{
		{"a stranger named by a forged line", 40, []int{40, 1}, "carries no token of this run ($CLASSPROOF_RUN) and descends from no process of this run (its parents: [1])"},
		{"the harness, token in its arguments", 41, []int{41, 42, 1}, ""},
		{"the daemon, token in its environment", 42, []int{42, 1}, ""},
		{"a tool with no token of its own below the harness", 50, []int{50, 41, 1}, ""},
		{"an orphan the kit inherited as subreaper", 51, []int{51, me, 900, 1}, ""},
		{"another run's process", 43, []int{43, 1}, "carries no token of this run"},
		{"a token that only starts like the run's", 44, []int{44, 1}, "carries no token of this run"},
		{"pid 1 (a leader line there would be kill(-1))", 1, []int{1}, "pid 1 is never signalled"},
		{"pid 0", 0, []int{0}, "pid 0 is never signalled"},
		{"the kit itself", me, mine, "it is the kit itself"},
		{"the kit's parent", 900, []int{900, 1}, "it is an ancestor of the kit"},
	} {
		ok, why := tiedBy(c.pid, me, mine, c.chain, identity, token)
		if ok != (c.want == "") || !strings.Contains(why, c.want) {
			t.Errorf("%s: tied %v, %q; want %q", c.name, ok, why, c.want)
		}
	}
	if ok, _ := tiedBy(40, me, mine, []int{40, 1}, identity, ""); ok {
		t.Error("with no token, a stranger was tied")
	}
}

// The sweep acts on no line it cannot tie, and says so for each; a line that is no entry is
// refused too, never skipped in silence. The kit's own parent stands in for a stranger: it is
// alive, outside the kit's tree, and must never be signalled.
func TestSweepRefusesWhatItCannotTie(t *testing.T) {
	ledger := filepath.Join(t.TempDir(), "ledger")
	parent := os.Getppid()
	in, ok := Lookup(parent)
	if !ok {
		t.Skip("cannot read the test's parent")
	}
	lines := fmt.Sprintf("{\"role\":\"forged\",\"pid\":%d,\"start\":%d,\"leader\":true}\n{\"role\":\"init\",\"pid\":1,\"leader\":true,\"start\":%d}\nnot json\n",
		parent, in.Start, initStart(t))
	if err := os.WriteFile(ledger, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	leaks, refused, err := Sweep(ledger, "cp-test")
	if err != nil || len(leaks) != 0 {
		t.Fatalf("leaks %v err %v", leaks, err)
	}
	want := []string{fmt.Sprintf("forged pid %d", parent), "it is an ancestor of the kit", "init pid 1", "pid 1 is never signalled", `ledger line "not json": not an entry`}
	all := strings.Join(refused, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("refused lines lack %q:\n%s", w, all)
		}
	}
	if !Alive(parent) {
		t.Fatal("the sweep killed the test's parent")
	}
}

func initStart(t *testing.T) uint64 {
	in, ok := Lookup(1)
	if !ok {
		t.Skip("cannot read pid 1")
	}
	return in.Start
}
