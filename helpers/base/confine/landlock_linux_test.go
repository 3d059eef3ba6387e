package confine

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// run starts sh -c script alone under p (Start) and returns what it printed.
func run(t *testing.T, p Policy, script string) (string, error) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := Start(cmd, p); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	return out.String(), err
}

func needLandlock(t *testing.T) {
	if s := Current(); s.Kind != "landlock" {
		t.Skipf("no Landlock here: %s", s)
	}
}

func TestALauncherWritesOnlyWhatItWasGiven(t *testing.T) {
	needLandlock(t)
	allowed, kit := t.TempDir(), t.TempDir()
	victim := filepath.Join(kit, "cpuclass.test")
	if err := os.WriteFile(victim, []byte("the kit's"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, Policy{Dirs: []string{allowed}}, `
		echo ok > "`+allowed+`/mine" && mkdir "`+allowed+`/sub" && echo ok > "`+allowed+`/sub/f" && echo ok > /dev/null || exit 3
		echo forged > "`+victim+`" && exit 4
		rm -f "`+victim+`" && exit 5
		mkdir "`+kit+`/planted" && exit 6
		exit 0`)
	if err != nil {
		t.Fatalf("the sandboxed script: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(victim); string(b) != "the kit's" {
		t.Fatalf("the kit's file holds %q after the launcher wrote it", b)
	}
	if b, _ := os.ReadFile(filepath.Join(allowed, "sub", "f")); string(b) != "ok\n" {
		t.Fatalf("the launcher's own folder holds %q, want its write", b)
	}
	if got := Denied(out, Policy{Dirs: []string{allowed}}); len(got) == 0 || got[0] != victim {
		t.Fatalf("Denied(%q) = %q, want %s first", out, got, victim)
	}
}

func TestASandboxedProcessCannotSignalTheKit(t *testing.T) {
	needLandlock(t)
	if Current().ABI < 6 {
		t.Skipf("Landlock ABI %d scopes no signals", Current().ABI)
	}
	out, err := run(t, Policy{}, "kill -0 "+strconv.Itoa(os.Getpid())+" && exit 7; sleep 0 & kill -0 $! || exit 8; exit 0")
	if err != nil {
		t.Fatalf("the sandboxed script: %v\n%s", err, out)
	}
}

// BenchmarkStart is what the sandbox adds to each launcher process: a thread and a ruleset.
func BenchmarkStart(b *testing.B) {
	for _, sandboxed := range []bool{false, true} {
		b.Run(map[bool]string{false: "plain", true: "sandboxed"}[sandboxed], func(b *testing.B) {
			dir := b.TempDir()
			for i := 0; i < b.N; i++ {
				cmd := exec.Command("/bin/true")
				start := cmd.Start
				if sandboxed {
					start = func() error { return Start(cmd, Policy{Dirs: []string{dir}}) }
				}
				if err := start(); err != nil {
					b.Fatal(err)
				}
				if err := cmd.Wait(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A launcher's processes started apart by one Spawner (its host, then a ping that signals the
// host) are in one domain and may signal one another; another Spawner's (another spec's
// launcher) are not.
func TestOneSpawnersProcessesSignalOneAnother(t *testing.T) {
	needLandlock(t)
	if Current().ABI < 6 {
		t.Skipf("Landlock ABI %d scopes no signals", Current().ABI)
	}
	mine, theirs := NewSpawner(Policy{}), NewSpawner(Policy{})
	defer mine.Close()
	defer theirs.Close()
	host := exec.Command("sleep", "60")
	if err := mine.Start(host); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = host.Process.Kill(); _ = host.Wait() }()
	for _, c := range []struct {
		s    *Spawner
		want bool
	}{{mine, true}, {theirs, false}} {
		ping := exec.Command("sh", "-c", "kill -0 "+strconv.Itoa(host.Process.Pid))
		if err := c.s.Start(ping); err != nil {
			t.Fatal(err)
		}
		if err := ping.Wait(); (err == nil) != c.want {
			t.Errorf("a signal to the host from the same spawner: %v, from another: want refused; same=%v got err %v", c.want, c.s == mine, err)
		}
	}
}

// The kit's own threads stay free: after many sandboxed starts, every goroutine of the kit can
// still write and start unsandboxed processes (a restricted thread the runtime handed to other
// goroutines would refuse some of these writes).
func TestTheKitsOwnThreadsStayFree(t *testing.T) {
	needLandlock(t)
	for i := 0; i < 30; i++ {
		cmd := exec.Command("true")
		if err := Start(cmd, Policy{}); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
	}
	dir := t.TempDir()
	errs := make(chan error, 400)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				f := filepath.Join(dir, fmt.Sprintf("go-%d-%d", g, i))
				errs <- os.WriteFile(f, []byte("x"), 0o600)
				out, err := exec.Command("sh", "-c", "echo x > "+f+".sh").CombinedOutput()
				if err != nil {
					err = fmt.Errorf("%v: %s", err, out)
				}
				errs <- err
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("a write of the kit's own failed after sandboxed starts: %v", err)
		}
	}
}

// A Spawner capped at an older kernel's ABI enforces what that kernel would, no more: at ABI 4
// and 5 (GitHub's hosted runners) writes outside the policy are still refused but a signal to the
// kit is not; at ABI 2 a truncate(2) of a file the launcher cannot write goes through (python3 for truncate(2) by path:
// truncate(1) opens the file for writing first).
func TestACappedSpawnerEnforcesThatABIOnly(t *testing.T) {
	needLandlock(t)
	if Current().ABI < 6 {
		t.Skipf("Landlock ABI %d: nothing to cap below", Current().ABI)
	}
	allowed, kit := t.TempDir(), t.TempDir()
	victim := filepath.Join(kit, "report.json")
	for _, abi := range []int{2, 4, 5, Current().ABI} {
		if err := os.WriteFile(victim, []byte("the kit's"), 0o644); err != nil {
			t.Fatal(err)
		}
		s := &Spawner{p: Policy{Dirs: []string{allowed}}, abi: abi}
		cmd := exec.Command("sh", "-c", `echo x >"$1" && exit 3; kill -0 "$2" && echo signalled; python3 -c 'import os,sys; os.truncate(sys.argv[1], 0)' "$3" 2>/dev/null && echo truncated; exit 0`,
			"sh", filepath.Join(kit, "planted"), strconv.Itoa(os.Getpid()), victim)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := s.Start(cmd); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		s.Close()
		if err != nil {
			t.Errorf("ABI %d: a write outside the policy went through, or the script failed: %v\n%s", abi, err, out.String())
		}
		if got, want := strings.Contains(out.String(), "signalled"), abi < 6; got != want {
			t.Errorf("ABI %d: the kit signalled: %v, want %v\n%s", abi, got, want, out.String())
		}
		if got, want := strings.Contains(out.String(), "truncated"), abi < 3; got != want {
			t.Errorf("ABI %d: the kit's report truncated: %v, want %v\n%s", abi, got, want, out.String())
		}
	}
}

// What a capped or older Landlock lacks is said, and whether writes are confined follows it.
func TestTheStateSaysWhatItLacks(t *testing.T) {
	for _, c := range []struct {
		s        State
		confined bool
		says     []string
	}{
		{capped(State{Kind: "landlock", ABI: 7}, "abi5"), true, []string{"landlock ABI 5", "capped by CLASSPROOF_SANDBOX=abi5, the kernel has ABI 7", "signals and abstract unix sockets not scoped"}},
		{State{Kind: "landlock", ABI: 4}, true, []string{"landlock ABI 4", "not enforced: signals"}},
		{State{Kind: "landlock", ABI: 2}, false, []string{"truncating a file (truncate, ABI 3) not refused"}},
		{State{Kind: "landlock", ABI: 7}, true, []string{"signals and abstract sockets scoped"}},
		{capped(State{Kind: "landlock", ABI: 4}, "abi6"), true, []string{"landlock ABI 4 ("}},
		{State{Kind: "none", Why: "no Landlock"}, false, []string{"none: no Landlock"}},
	} {
		got := c.s.String()
		for _, w := range c.says {
			if !strings.Contains(got, w) {
				t.Errorf("%+v: %q, want it to say %q", c.s, got, w)
			}
		}
		if c.s.Confined() != c.confined {
			t.Errorf("%+v: Confined %v, want %v", c.s, c.s.Confined(), c.confined)
		}
	}
	if s := (State{Kind: "landlock", ABI: 7}); strings.Contains(s.String(), "not enforced") || len(s.Lacks()) != 0 {
		t.Errorf("ABI 7 lacks nothing: %q %q", s, s.Lacks())
	}
}
