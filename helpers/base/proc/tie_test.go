package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/classproof/classproof/helpers/base/proctable"
)

// A ledger line or a harness report is a claim: the kit signals only what it can tie to the run.
func TestTiedByTheRule(t *testing.T) {
	const me, token = 1000, "cp-0123"
	mine := []int{me, 900, 800, 1} // the kit, its parent (the ginkgo CLI), a subreaper above, init
	words := map[int]string{
		40: "sleep\x0030\x00HOME=/root\x00",                         // a stranger
		41: "harness\x00--report\x00r.json\x00--run\x00cp-0123\x00", // the token as an argument
		42: "daemon\x00PATH=/bin\x00CLASSPROOF_RUN=cp-0123\x00",     // in the environment
		43: "sleep\x00CLASSPROOF_RUN=cp-9999\x00",                   // another run's token
		44: "harness\x00--run\x00cp-01234\x00",                      // a token with the run's as a prefix
	}
	words[1] = "init\x00CLASSPROOF_RUN=cp-0123\x00"
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
		{"another run's process", 43, []int{43, 1}, "it carries another run's token"},
		// a matrix cell's: another run of the same CLI descends from the kit too
		{"another run's process below the kit", 43, []int{43, me, 1}, "it carries another run's token"},
		{"a token that only starts like the run's", 44, []int{44, 1}, "carries no token of this run"},
		{"pid 1 (a leader line there would be kill(-1))", 1, []int{1}, "pid 1 is never signalled"},
		{"pid 0", 0, []int{0}, "pid 0 is never signalled"},
		{"the kit itself", me, mine, "it is the kit itself"},
		{"the kit's parent", 900, []int{900, 1}, "it is an ancestor of the kit"},
		// --procs 2: the other test process carries the run's token in its environment too
		{"a sibling test process, token and all", 42, []int{42, 900, 1}, "it descends from the kit's own ancestor 900"},
		{"a tool of a sibling test process's launcher", 50, []int{50, 42, 900, 1}, "it descends from the kit's own ancestor 900"},
		{"an escaped launcher process handed to a subreaper above the kit's parent", 42, []int{42, 800, 1}, ""},
		// init carries whatever it was started with; a chain reaching it ties nothing
		{"a stranger whose chain reaches an init that names the token", 45, []int{45, 1}, "carries no token of this run"},
	} {
		ok, why := tiedBy(c.pid, kitOf(me, mine, 0), c.chain, identity, token)
		if ok != (c.want == "") || !strings.Contains(why, c.want) {
			t.Errorf("%s: tied %v, %q; want %q", c.name, ok, why, c.want)
		}
	}
	if ok, _ := tiedBy(40, kitOf(me, mine, 0), []int{40, 1}, identity, ""); ok {
		t.Error("with no token, a stranger was tied")
	}
}

// With several suites (each its own ginkgo CLI under one classproof CLI), another suite's test
// process is a cousin of the kit's that carries the run's token: it descends from the supervisor,
// not from the kit, and is never tied. Without a supervisor in the chain only the parent is kin.
func TestACousinSuiteIsNeverTied(t *testing.T) {
	const me, token = 1000, "cp-0123"
	mine := []int{me, 900, 700, 600, 1} // the kit, its ginkgo CLI, the classproof CLI, a shell, init
	identity := func(pid int) ([]byte, error) {
		if pid == 42 || pid == 43 {
			return []byte("suite.test\x00CLASSPROOF_RUN=cp-0123\x00"), nil
		}
		return []byte("x\x00"), nil
	}
	cousin := []int{42, 800, 700, 600, 1} // another suite's test process, under its own ginkgo CLI
	if ok, why := tiedBy(42, kitOf(me, mine, 700), cousin, identity, token); ok || !strings.Contains(why, "ancestor 700") {
		t.Errorf("a cousin suite's test process: tied %v, %q; want refused as a descendant of the supervisor 700", ok, why)
	}
	if ok, why := tiedBy(51, kitOf(me, mine, 700), []int{51, 42, 800, 700, 600, 1}, identity, token); ok || !strings.Contains(why, "ancestor") {
		t.Errorf("a launcher's process of the cousin suite: tied %v, %q; want refused", ok, why)
	}
	// above the supervisor nothing changes: a process under the shell that carries the token is tied
	if ok, why := tiedBy(43, kitOf(me, mine, 700), []int{43, 600, 1}, identity, token); !ok {
		t.Errorf("a token carrier above the supervisor: refused, %q", why)
	}
	// no supervisor known (a suite run by go test): the parent alone is kin, as before
	if ok, why := tiedBy(42, kitOf(me, mine, 0), cousin, identity, token); !ok {
		t.Errorf("without a supervisor, a token carrier outside the parent's tree was refused: %q", why)
	}
	if k := kitOf(me, mine, 700); !slices.Equal(k.kin, []int{900, 700}) {
		t.Errorf("kin %v, want [900 700]", k.kin)
	}
	if k := kitOf(me, mine, me); !slices.Equal(k.kin, []int{900}) {
		t.Errorf("the supervisor itself: kin %v, want its parent alone [900]", k.kin)
	}
	// a chain of two (a suite process whose parent the table shows, nothing above): the parent
	// is kin; a chain of one has none
	if k := kitOf(me, []int{me, 900}, 0); !slices.Equal(k.kin, []int{900}) {
		t.Errorf("a chain of me and my parent: kin %v, want [900]", k.kin)
	}
	if k := kitOf(me, []int{me}, 0); len(k.kin) != 0 {
		t.Errorf("a chain of me alone: kin %v, want none", k.kin)
	}
}

// The sweep acts on no line it cannot tie, and says so for each; a line that is no entry is
// refused too, never skipped in silence. The kit's own parent stands in for a stranger: it is
// alive, outside the kit's tree, and must never be signalled.
func TestSweepRefusesWhatItCannotTie(t *testing.T) {
	ledger := filepath.Join(t.TempDir(), "ledger")
	parent := os.Getppid()
	in, lerr := proctable.Lookup(parent)
	if lerr != nil {
		t.Skip("cannot read the test's parent")
	}
	lines := fmt.Sprintf("{\"role\":\"forged\",\"pid\":%d,\"start\":%d,\"leader\":true}\n{\"role\":\"init\",\"pid\":1,\"leader\":true,\"start\":%d}\nnot json\n",
		parent, in.Start, initStart(t))
	if err := os.WriteFile(ledger, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	leaks, refused, err := Sweep(ledger, "cp-test", nil, -1)
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
	if !alive(parent) {
		t.Fatal("the sweep killed the test's parent")
	}
}

func initStart(t *testing.T) uint64 {
	in, lerr := proctable.Lookup(1)
	if lerr != nil {
		t.Skip("cannot read pid 1")
	}
	return in.Start
}

// A group is killed only when its leader leads it now, it is not the kit's own group, and it is
// no group of pid 1 (kill(-1) signals every process).
func TestGroupKillNeedsALeaderOfAnotherGroup(t *testing.T) {
	leader := exec.Command("sleep", "30")
	leader.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	member := exec.Command("sleep", "30")
	for _, c := range []*exec.Cmd{leader, member} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
	}
	for _, c := range []struct {
		name string
		e    Entry
		want bool
	}{
		{"a leader of its own group", Entry{Pid: leader.Process.Pid, Leader: true}, true},
		{"the same process, recorded as no leader", Entry{Pid: leader.Process.Pid}, false},
		{"a process in the kit's group, recorded as a leader", Entry{Pid: member.Process.Pid, Leader: true}, false},
		{"pid 1, recorded as a leader", Entry{Pid: 1, Leader: true}, false},
		{"pid 0, recorded as a leader", Entry{Pid: 0, Leader: true}, false},
	} {
		if got := group(c.e); got != c.want {
			t.Errorf("%s: group %v, want %v", c.name, got, c.want)
		}
	}
	// The rule on a table read: pid 1 leads its group on most systems (not in every container).
	pgids := map[int]int{1: 1, 60: 60, 61: 60, 70: 70}
	getpgid := func(pid int) (int, error) {
		if g, ok := pgids[pid]; ok {
			return g, nil
		}
		return -1, syscall.ESRCH
	}
	for _, c := range []struct {
		name string
		pid  int
		want bool
	}{
		{"pid 1 leading its group", 1, false},
		{"a leader", 60, true},
		{"a member of another group", 61, false},
		{"the kit's own group's leader", 70, false},
		{"a gone process", 80, false},
	} {
		if got := groupBy(Entry{Pid: c.pid, Leader: true}, getpgid, 70); got != c.want {
			t.Errorf("%s (pid %d): group %v, want %v", c.name, c.pid, got, c.want)
		}
	}
}

// A late tool is asked for with SIGUSR1 to the pid a harness report names: only that process,
// while it is the one that started then, and only one the kit may signal. A stranger the report
// names (here an orphan of init that carries no token) or a pid whose start time is not the
// reported one is not signalled, and the error says why.
func TestASignalGoesOnlyToTheReportedProcess(t *testing.T) {
	s := NewSet()
	child := exec.Command("sleep", "30")
	if err := s.Contain(child); err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
	in, lerr := proctable.Lookup(child.Process.Pid)
	if lerr != nil {
		t.Fatal("the child is not in the process table")
	}
	if err := s.Signal("harness", child.Process.Pid, in.Start+1, syscall.SIGCONT); err == nil || !strings.Contains(err.Error(), "no live process with that pid started at") {
		t.Errorf("a wrong start time: %v", err)
	}
	if err := s.Signal("harness", child.Process.Pid, in.Start, syscall.SIGCONT); err != nil {
		t.Errorf("the process the kit started: %v", err)
	}
	// An orphan of init: sh starts a sleep in the background and exits at once.
	orphan := exec.Command("sh", "-c", "sleep 30 >/dev/null 2>&1 & echo $!")
	orphan.Env = []string{"PATH=" + os.Getenv("PATH")}
	out, err := orphan.Output()
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	if err := Until(time.Now().Add(5*time.Second), 10*time.Millisecond, func() (bool, error) {
		pp, err := proctable.ParentOf(pid)
		return err == nil && pp != os.Getpid() && pp != orphan.Process.Pid, nil
	}); err != nil {
		t.Skipf("the orphan was not reparented away from the test: %v", err)
	}
	oin, _ := proctable.Lookup(pid)
	if err := s.Signal("harness", pid, oin.Start, syscall.SIGCONT); err == nil || !strings.Contains(err.Error(), "not signalled") {
		t.Errorf("a stranger named by a report: %v", err)
	}
}

// The rule for the kit's own parent holds only for a real parent: a kit started straight by init
// (a container's entrypoint) or whose chain could not be read past itself still ties its
// launcher's processes, which all descend from init too.
func TestAKitWithoutAParentOfItsOwnStillTiesItsLaunchers(t *testing.T) {
	const me, token = 1000, "cp-0123"
	identity := func(pid int) ([]byte, error) {
		if pid == 42 {
			return []byte("daemon\x00CLASSPROOF_RUN=cp-0123\x00"), nil
		}
		return nil, errors.New("gone")
	}
	for name, mine := range map[string][]int{"the kit's parent is init": {me, 1}, "the kit's chain is itself alone": {me}} {
		if ok, why := tiedBy(42, kitOf(me, mine, 0), []int{42, 1}, identity, token); !ok {
			t.Errorf("%s: the launcher's daemon was not tied: %s", name, why)
		}
	}
}
