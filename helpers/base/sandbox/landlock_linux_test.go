package sandbox

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

// run starts sh -c script through Wrap under p and returns what it printed.
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
