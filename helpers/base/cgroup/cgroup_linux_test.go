package cgroup

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/proctable"
)

// needCgroup skips where this process cannot make a cgroup: the fallback is then what runs,
// and the tests above cover it.
func needCgroup(t *testing.T) *Cgroup {
	t.Helper()
	c := Contained()
	if c.Cgroup == nil {
		t.Skipf("no writable cgroup v2 here: %s", c.Why)
	}
	return c.Cgroup
}

// TestMain ends the cgroup this test process made, as the CLI and the suites do at their end.
func TestMain(m *testing.M) {
	code := m.Run()
	if left, err := CloseContained(func() {}); len(left) > 0 || err != nil {
		println("cgroup tests: this process's cgroup at the end:", strings.Join(left, "; "), err)
		code = 1
	}
	os.Exit(code)
}

// A run's cgroup that looks stale from here is swept only when its owner is provably gone: owned
// from this pid namespace by a pid that no longer runs. One named for another namespace (a kit in
// a container on this host's cgroup tree, whose pid means nothing here) or with an older kit's
// name keeps its process; the other namespace's dead-looking pid is this test's own, which a
// namespace-blind sweep would have judged gone.
func TestOnlyAProvablyGoneOwnersCgroupIsSwept(t *testing.T) {
	cg := needCgroup(t)
	mount := strings.TrimSuffix(cg.Path, cg.rel)
	parent := cg.rel + "/sweep-test"
	if err := os.Mkdir(mount+parent, 0o755); err != nil {
		t.Fatal(err)
	}
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dead := gone.ProcessState.Pid()
	names := map[string]bool{ // name: swept
		ownerCgroup + strconv.Itoa(dead) + "-1-" + strconv.FormatUint(proctable.PidNS(), 10):   true,
		ownerCgroup + strconv.Itoa(dead) + "-1-" + strconv.FormatUint(proctable.PidNS()+1, 10): false,
		ownerCgroup + strconv.Itoa(dead) + "-123456":                                           false,
	}
	sleeps := map[string]*exec.Cmd{}
	for name := range names {
		c, err := openCgroupIn(t, mount, parent+"/"+name)
		if err != nil {
			t.Fatal(err)
		}
		s := exec.Command("sleep", "60")
		c.Start(s)
		if err := s.Start(); err != nil {
			t.Fatal(err)
		}
		sleeps[name] = s
		go func() { _ = s.Wait() }()
		t.Cleanup(func() { _ = c.kill(5*time.Second, func() {}); _ = c.remove() })
	}
	sweepStale(mount, parent)
	for name, swept := range names {
		_, err := os.Stat(mount + parent + "/" + name)
		alive := alive(sleeps[name].Process.Pid)
		if swept && (err == nil || alive) {
			t.Errorf("%s: owner gone in this namespace, yet the cgroup is still there (stat: %v) or its sleep alive (%v)", name, err, alive)
		}
		if !swept && (err != nil || !alive) {
			t.Errorf("%s: owner not provably gone, yet the sweep removed the cgroup (stat: %v) or killed its sleep (alive: %v)", name, err, alive)
		}
	}
	t.Cleanup(func() { _ = os.Remove(mount + parent) })
}

func openCgroupIn(t *testing.T, mount, rel string) (*Cgroup, error) {
	t.Helper()
	if err := os.Mkdir(mount+rel, 0o755); err != nil {
		return nil, err
	}
	return openCgroup(mount, rel, true)
}

// The exit grace is the kit's one time setting's: a process that ends 400 ms after the close
// began is on its way out under the default scale, and a leak where CLASSPROOF_TIME_SCALE makes
// the grace 100 ms.
func TestTheExitGraceScales(t *testing.T) {
	root := needCgroup(t)
	for _, c := range []struct {
		scale string
		leak  bool
	}{{"", false}, {"0.05", true}} {
		t.Setenv(contract.ScaleEnv, c.scale)
		cg, err := root.Child(Name("grace", 1))
		if err != nil {
			t.Fatal(err)
		}
		s := exec.Command("sleep", "0.4")
		cg.Start(s)
		if err := s.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- s.Wait() }()
		leaks, err := cg.Close(func() {})
		if err != nil || (len(leaks) > 0) != c.leak {
			t.Errorf("%s=%q: leaks %q, %v; want a leak: %v", contract.ScaleEnv, c.scale, leaks, err, c.leak)
		}
		<-done
	}
}

// A member is judged after the list is read: one that forks and exits in between (a pid-hopping
// chain, under load) looks gone, and its child is not in that list, only in the next. None is
// left only when a read finds no member it had not seen dying before: here the first read names
// a pid that is gone and the next adds a live sleep, which is then the leak, named by what it
// runs. Before, the first read ended the grace with no leak (TestAChainOfShortLivedProcessesIsALeak
// failed 1 whole-package run in 6 on a busy machine).
func TestNoneIsLeftOnlyWhenAReadFindsNothingNew(t *testing.T) {
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	live := exec.Command("sleep", "30")
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = live.Process.Kill(); _ = live.Wait() })
	g, l := gone.Process.Pid, live.Process.Pid
	for _, c := range []struct {
		reads [][]int // what each read of the members lists, the last one thereafter
		want  []int
	}{{[][]int{{g}, {g, l}}, []int{l}}, {[][]int{{g}}, nil}} {
		members := listing(c.reads)
		left, err := outlasting(100*time.Millisecond, members)
		if err != nil || fmt.Sprint(left) != fmt.Sprint(c.want) {
			t.Errorf("reads listing %v (pid %d gone, %d live): left %v, %v; want %v", c.reads, g, l, left, err, c.want)
		}
	}
	// Named by what runs now: the pid the grace ended on is gone, the cgroup's member now is not.
	named := leftovers([]int{g}, listing([][]int{{g, l}}))
	if len(named) != 1 || !strings.Contains(named[0], fmt.Sprintf(`pid %d ["sleep" "30"]`, l)) {
		t.Errorf("a leftover gone before it was named: %q; want the sleep %d that is there now", named, l)
	}
	if named := leftovers([]int{g}, listing([][]int{{g}})); len(named) != 1 || !strings.Contains(named[0], fmt.Sprintf("pid %d", g)) {
		t.Errorf("a leftover gone, and nothing there now: %q; want it named all the same", named)
	}
}

// listing is a cgroup's members as its reads find them: reads[i] for the i-th, the last one
// thereafter.
func listing(reads [][]int) func() ([]int, error) {
	i := 0
	return func() ([]int, error) {
		r := reads[min(i, len(reads)-1)]
		i++
		return r, nil
	}
}

// alive is proctable.Alive for a test: a process the test cannot read fails it loudly.
func alive(pid int) bool {
	a, err := proctable.Alive(pid)
	if err != nil {
		panic(err)
	}
	return a
}
