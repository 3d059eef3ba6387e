//go:build e2e

package runner_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/classproof/classproof/fixtures/targets"
	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/label"
	"github.com/classproof/classproof/helpers/base/proc"
	"github.com/classproof/classproof/helpers/base/proctable"
	"github.com/classproof/classproof/helpers/binaries"
	"github.com/classproof/classproof/helpers/gate"
	"github.com/classproof/classproof/helpers/lane"
	"github.com/classproof/classproof/helpers/report"
	"github.com/classproof/classproof/helpers/report/actions"
	"github.com/classproof/classproof/helpers/runner"
)

func kitDir(t *testing.T) string {
	t.Helper()
	dir, err := binaries.KitDir()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func cacheDir(t *testing.T) string {
	t.Helper()
	dir, err := binaries.CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// A launcher binary that is missing is one message, before any suite compiles.
func TestMissingLauncherIsOnePreflightError(t *testing.T) {
	manifest := filepath.Join(t.TempDir(), "gone.yaml")
	os.WriteFile(manifest, []byte(`
name: gone
class_env: GONE_CLASS
background: {darwin: unsupported, linux: idle}
daemon: {run: ["/nonexistent/gone", daemon, "{socket}"], ready: {socket: "{socket}"}}
session: {direct: ["/nonexistent/gone", session, "{profile}"]}
`), 0o644)
	before, _ := filepath.Glob(filepath.Join(cacheDir(t), ".suites-*"))
	_, err := runner.Run(context.Background(), runner.Options{Target: resolve(t, manifest, ""), OutDir: t.TempDir(), Log: io.Discard})
	var le *binaries.LauncherError
	if !errors.As(err, &le) || le.Step != binaries.StepCheck {
		t.Fatalf("got %v, want a build.LauncherError at its check step", err)
	}
	msg := err.Error()
	for _, want := range []string{manifest, `daemon.run[0], session.direct[0] "/nonexistent/gone"`, "no such file or directory"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Count(msg, "/nonexistent/gone\"") != 1 {
		t.Errorf("the missing binary is named more than once:\n%s", msg)
	}
	after, _ := filepath.Glob(filepath.Join(cacheDir(t), ".suites-*"))
	if len(after) > len(before) {
		t.Errorf("a suite was build.Compiled before the preflight refused the target: %v", after)
	}
}

// A launcher that keeps the seed's promises in its own words (shmux, in bash: lowercase values
// only, refusals that do not name the profile, config --get printing nothing for an unset key,
// no spawn-spec interface), described by a manifest that declares no convention, passes its lane:
// nothing fails, nothing skips at run time, every left-out spec has its reason, and the gate
// accepts the lane.
func TestAConventionsFreeLauncherPassesItsLane(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every suite against shmux")
	}
	if runtime.GOOS != "linux" {
		t.Skip("shmux is Linux only (util-linux chrt and ionice)")
	}
	for _, tool := range []string{"bash", "chrt", "ionice", "setsid", "flock", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("shmux needs %s: %v", tool, err)
		}
	}
	// A whole lane, two Ginkgo processes, while make unit runs every other package's tests on the
	// same two cores: the slow machine the time scale is for. shmux (bash, a python3 per request,
	// one request at a time) then answered 2 of 8 sessions started at once after the 10 s timeout.
	t.Setenv(contract.ScaleEnv, "3")
	out := filepath.Join(t.TempDir(), "lanes", "linux-idle")
	res, err := runner.Run(context.Background(), runner.Options{Target: resolve(t, "embedded:shmux-bare.yaml", "linux-idle"),
		Lane: "linux-idle", Procs: 2, OutDir: out, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Run.Count()
	t.Logf("shmux-bare, linux-idle: %d ran, %d passed, %d failed, %d skipped at run time, %d left out", c.Ran, c.Passed, c.Failed, c.Skipped, c.Filtered)
	if !res.Passed() || c.Failed != 0 || c.Skipped != 0 || c.Ran == 0 {
		t.Fatalf("the lane did not pass: %+v, problems %v\n%s", c, res.Problems, res.Run.Summary(res.Filter))
	}
	leftOut := map[string]int{}
	for _, s := range res.Run.Specs {
		if s.Filtered {
			label, why := res.Run.LeftOutReason(s)
			if label == "other" {
				t.Errorf("left out with no reason: %s", s.Name)
			}
			leftOut[label+": "+why]++
		}
	}
	for _, want := range []string{"conv-fold-case", "conv-names-profile", "conv-empty-unset", "needs-spawn-spec"} {
		found := false
		for k := range leftOut {
			found = found || strings.HasPrefix(k, want+": ")
		}
		if !found {
			t.Errorf("no spec left out for %s: %v", want, leftOut)
		}
	}
	v, err := gate.EvaluateWith(filepath.Dir(out), nil, []string{"linux-idle"}, gate.Options{})
	if err != nil || !v.Pass {
		t.Fatalf("the gate refused the lane: %v %v", err, v.Reasons)
	}
}

// kill -9 of classproof mid-run: the suites see their supervisor gone, interrupt themselves and
// run their cleanups, so within a few seconds no process of that run is left, and the next run
// removes the binaries.Compiled suites it left behind.
func TestAKilledRunDoesNotGoOnAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and starts a run")
	}
	dir := kitDir(t)
	bin := filepath.Join(t.TempDir(), "classproof")
	gobuild := exec.Command("go", "build", "-o", bin, "./cmd/classproof")
	gobuild.Dir = dir
	if out, err := gobuild.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// refmux whose session command first sleeps: every session spec then waits out the launch
	// timeout, so the run would go on for minutes on its own.
	ref, _ := targets.FS.ReadFile(targets.Default)
	slow := strings.NewReplacer(
		`direct: ["{bin}/refmux", session`, `direct: [sh, -c, 'sleep 600; exec "$@"', sh, "{bin}/refmux", session`,
		`hosted: ["{bin}/refmux", session`, `hosted: [sh, -c, 'sleep 600; exec "$@"', sh, "{bin}/refmux", session`,
	).Replace(string(ref))
	manifest := filepath.Join(t.TempDir(), "slow.yaml")
	os.WriteFile(manifest, []byte(slow), 0o644)
	out := t.TempDir()
	cmd := exec.Command(bin, "run", "--target", manifest, "--suite", "./suites/cpuclass", "--out", out)
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until a session command is sleeping: the run is well under way.
	ledger := filepath.Join(out, "pids.ledger")
	// A kit killed before its sweep leaves its ledger append-only: t.TempDir's RemoveAll, which
	// runs after this, could not remove it.
	t.Cleanup(func() { _ = proc.UnsealLedger(ledger) })
	deadline := time.Now().Add(lane.Scale(60 * time.Second))
	for started, _ := proctable.Started("sleep 600", cmd.Process.Pid); len(started) == 0; started, _ = proctable.Started("sleep 600", cmd.Process.Pid) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("no session command started within a minute")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Everything the run is made of at this moment, by pid and start time.
	var run []proctable.Info
	below, err := proctable.Descendants(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	for _, pid := range below {
		if in, lerr := proctable.Lookup(pid); lerr == nil {
			run = append(run, in)
		}
	}
	// Builds are shared in the cache and stay; what a run killed in the middle of a build leaves
	// is a half-made folder owned by a process that is gone. One such, planted:
	stale := filepath.Join(cacheDir(t), ".suites-killed-mid-build")
	if err := os.MkdirAll(stale, 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(stale, "owner"), []byte(fmt.Sprintf("%d 1", cmd.Process.Pid)), 0o644)
	suites := []string{stale}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	left := func() []int {
		var pids []int
		for _, in := range run {
			if now, lerr := proctable.Lookup(in.Pid); lerr == nil && now.Start == in.Start && !now.Zombie {
				pids = append(pids, in.Pid)
			}
		}
		b, _ := os.ReadFile(ledger)
		for _, line := range strings.Split(string(b), "\n") {
			var e proc.Entry
			if json.Unmarshal([]byte(line), &e) == nil && e.Start != 0 {
				if now, lerr := proctable.Lookup(e.Pid); lerr == nil && now.Start == e.Start && !now.Zombie {
					pids = append(pids, e.Pid)
				}
			}
		}
		return pids
	}
	deadline = time.Now().Add(lane.Scale(5 * time.Second))
	for len(left()) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if pids := left(); len(pids) > 0 {
		what := proctable.DescribeAll(pids) // before the kill below changes it
		for _, p := range pids {
			syscall.Kill(p, syscall.SIGKILL)
		}
		t.Fatalf("5 s after kill -9 of classproof, processes of its run were still alive: %s (of %d)", what, len(run))
	}
	t.Logf("all %d processes of the run were gone after kill -9 of classproof", len(run))
	// The next run removes the half-made build folder the killed one left.
	if _, err := runner.Run(context.Background(), runner.Options{Target: resolve(t, "embedded:refmux.yaml", ""), Suites: []string{"./suites/cpuclass"},
		LabelFilter: "no-such-label", OutDir: t.TempDir(), Log: io.Discard}); err != nil {
		t.Fatal(err)
	}
	for _, d := range suites {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("the killed run's build.Compiled suites %s are still there after the next run", d)
		}
	}
}

// A shared --out folder is refused: reports and the ledger written there could be redirected
// through planted symlinks, or a planted ledger swept.
func TestASharedOutFolderIsRefused(t *testing.T) {
	out := filepath.Join(t.TempDir(), "shared")
	os.Mkdir(out, 0o777)
	os.Chmod(out, 0o1777)
	_, err := runner.Run(context.Background(), runner.Options{Target: resolve(t, "", ""), OutDir: out, Log: io.Discard, Suites: []string{"./suites/cpuclass"}})
	if err == nil || !strings.Contains(err.Error(), "writable by others") || !strings.Contains(err.Error(), "refusing to write reports") {
		t.Fatalf("a 1777 --out folder was accepted: %v", err)
	}
	// A private folder under one anyone can write: its owner can swap it for their own.
	ww := filepath.Join(t.TempDir(), "ww")
	os.Mkdir(ww, 0o777)
	os.Chmod(ww, 0o777)
	_, err = runner.Run(context.Background(), runner.Options{Target: resolve(t, "", ""), OutDir: filepath.Join(ww, "sub"), Log: io.Discard, Suites: []string{"./suites/cpuclass"}})
	if err == nil || !strings.Contains(err.Error(), ww+" is writable by others") {
		t.Fatalf("--out ww/sub under a 0777 ww was accepted: %v", err)
	}
}

// A cached launcher build whose binary is gone is built again, not failed on every run.
func TestACachedBuildWithAGoneBinaryIsRebuilt(t *testing.T) {
	// A cache of its own: removing a binary from the shared one pulled it from under a run of
	// another test package (the kill matrix's baseline: "fork/exec .../refmux: no such file").
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	refmuxT := resolve(t, "", "")
	bin, clean, err := binaries.Launcher(context.Background(), refmuxT, binaries.Where{}, io.Discard)
	defer clean()
	if err != nil {
		t.Fatal(err)
	}
	refmux := filepath.Join(bin, "refmux")
	if err := os.Remove(refmux); err != nil {
		t.Fatal(err)
	}
	again, clean2, err := binaries.Launcher(context.Background(), refmuxT, binaries.Where{}, io.Discard)
	defer clean2()
	if err != nil {
		t.Fatalf("the next run failed instead of building again: %v", err)
	}
	if _, err := os.Stat(filepath.Join(again, "refmux")); err != nil {
		t.Fatalf("refmux is still gone after the next preflight: %v", err)
	}
}

// A launcher under test cannot make the kit kill a stranger or speak for it in GitHub Actions: the
// direct session appends a forged ledger line naming a process the run never started (with its
// real start time, as a leader), and the hosted session prints workflow commands. The stranger
// lives, the line is reported as refused, and read as the runner reads it, no line of the
// launcher's acts as a command while the kit's own annotations do.
func TestAHostileLauncherCannotKillOrCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and starts a run")
	}
	dir, bin := kitDir(t), cli(t)
	stranger := exec.Command("sleep", "600")
	if err := stranger.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stranger.Process.Kill(); _ = stranger.Wait() }()
	in, lerr := proctable.Lookup(stranger.Process.Pid)
	if lerr != nil {
		t.Fatal("cannot read the stranger")
	}
	forged := fmt.Sprintf(`{"role":"harness (self-recorded)","pid":%d,"start":%d,"leader":true,"exe":"sleep"}`, in.Pid, in.Start)
	// The ledger's path is in the profile (the harness's --ledger); the launcher has no other.
	forge := `l=$(tr -d '\n' <"$2" | sed 's/.*"--ledger", *"\([^"]*\)".*/\1/'); printf '%s\n' "$1" >>"$l"; shift 2; exec "$@"`
	speak := `echo '::stop-commands::TOKEN'; echo '  ::add-mask::classproof'; echo '::warning file=x::pwned'; echo '::TOKEN::'; echo '::error::forged'; exit 3`
	scripts := t.TempDir()
	for name, body := range map[string]string{"forge.sh": forge, "speak.sh": speak} {
		if err := os.WriteFile(filepath.Join(scripts, name), []byte(body+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ref, _ := targets.FS.ReadFile(targets.Default)
	hostile := strings.NewReplacer(
		`direct: ["{bin}/refmux", session`, `direct: [sh, "`+scripts+`/forge.sh", "{forged}", "{profile}", "{bin}/refmux", session`,
		`hosted: ["{bin}/refmux", session, --socket, "{socket}", --profile, "{profile}", --hosted]`, `hosted: [sh, "`+scripts+`/speak.sh"]`,
		`  variant: ""`, "  variant: \"\"\n  forged: \"\"",
	).Replace(string(ref))
	manifest := filepath.Join(t.TempDir(), "hostile.yaml")
	if err := os.WriteFile(manifest, []byte(hostile), 0o644); err != nil {
		t.Fatal(err)
	}
	summary := filepath.Join(t.TempDir(), "summary.md")
	cmd := exec.Command(bin, "run", "--target", manifest, "--var", "forged="+forged, "--suite", "./suites/cpuclass",
		"--focus", "a direct session starts|a hosted session starts", "--out", t.TempDir())
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY="+summary)
	var stdout bytes.Buffer
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	log := stdout.String()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1 (the hosted sessions fail, a ledger line was refused):\n%s\n%s", err, log, stderr.String())
	}
	if !alive(in.Pid) {
		t.Fatalf("the stranger pid %d was killed by the run's sweep:\n%s", in.Pid, log)
	}
	// Either reason refuses it: the stranger carries no token of the run, and here, a child of
	// this test as the CLI is, it descends from the CLI's own parent.
	if want := fmt.Sprintf("REFUSED LEDGER LINE: harness (self-recorded) pid %d (sleep): not signalled: ", in.Pid); !strings.Contains(log, want) {
		t.Errorf("stdout does not report the refused line %q:\n%s", want, log)
	}
	if !strings.Contains(log, "::add-mask::classproof") {
		t.Fatalf("the launcher's words never reached stdout, so this proves nothing:\n%s", log)
	}
	acted := actions.Acted(log)
	kits := 0
	for _, a := range acted {
		if !strings.HasPrefix(a, "error title=") {
			t.Errorf("the runner would act on the launcher's %q", a)
		} else {
			kits++
		}
	}
	if kits == 0 {
		t.Errorf("no annotation of the kit's would be acted on:\n%s", log)
	}
}

var built struct {
	sync.Once
	bin string
	err error
}

// cli builds the CLI once for this test binary.
func cli(t *testing.T) string {
	t.Helper()
	built.Do(func() {
		dir, err := os.MkdirTemp("", "classproof-cli-test")
		if err != nil {
			built.err = err
			return
		}
		built.bin = filepath.Join(dir, "classproof")
		b := exec.Command("go", "build", "-o", built.bin, "./cmd/classproof")
		b.Dir = kitDir(t)
		if out, err := b.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

// Ctrl-C during a manifest's build step ends the build and the CLI at once, and leaves no
// temporary bin folder; --timeout bounds the build too.
func TestAnInterruptOrTimeoutStopsTheBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and starts a run")
	}
	dir, bin := kitDir(t), cli(t)
	ref, _ := targets.FS.ReadFile(targets.Default)
	slow := strings.Replace(string(ref), `  dir: "{kit}"
  run: [go, build,`, `  dir: "{kit}"
  run: [sh, -c, 'echo building; sleep 100 # ', go, build,`, 1)
	if slow == string(ref) {
		t.Fatal("the refmux manifest's build step moved; this test no longer slows it")
	}
	manifest := filepath.Join(t.TempDir(), "slow-build.yaml")
	if err := os.WriteFile(manifest, []byte(slow), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		args      []string
		interrupt bool
		says      string
	}{
		{"ctrl-c", nil, true, "FAILED LANE: interrupted during the launcher's build: no spec ran"},
		{"timeout", []string{"--timeout", "2s"}, false, "FAILED LANE: out of time (--timeout) during the launcher's build: no spec ran"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tmp := t.TempDir()
			cmd := exec.Command(bin, append([]string{"run", "--target", manifest, "--suite", "./suites/cpuclass", "--out", t.TempDir()}, c.args...)...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = cmd.Process.Kill() }()
			deadline := time.Now().Add(lane.Scale(60 * time.Second))
			for started, _ := proctable.Started("sleep 100", cmd.Process.Pid); len(started) == 0; started, _ = proctable.Started("sleep 100", cmd.Process.Pid) {
				if time.Now().After(deadline) {
					t.Fatalf("the build step never started:\n%s", out.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			build, _ := proctable.Started("sleep 100", cmd.Process.Pid)
			began := time.Now()
			if c.interrupt {
				_ = cmd.Process.Signal(os.Interrupt)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(lane.Scale(10 * time.Second)):
				t.Fatalf("the CLI was still running 10 s after the %s:\n%s", c.name, out.String())
			}
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
				t.Errorf("exit %v, want 1:\n%s", err, out.String())
			}
			if c.interrupt && time.Since(began) > 5*time.Second {
				t.Errorf("the CLI took %v after Ctrl-C, want under 5 s", time.Since(began))
			}
			for _, pid := range build {
				if alive(pid) {
					t.Errorf("the build step pid %d outlived the CLI", pid)
				}
			}
			if left, _ := filepath.Glob(filepath.Join(tmp, "classproof-bin*")); len(left) > 0 {
				t.Errorf("temporary bin folders left: %v", left)
			}
			if !strings.Contains(out.String(), c.says) {
				t.Errorf("output lacks %q:\n%s", c.says, out.String())
			}
		})
	}
}

// The seed's own kind of launcher on Linux: reads the class, applies nothing, and has no explain
// command. Its lane passes: every spec that observes runs (the control's class kept, direct and
// hosted; refusals; the config round trip; older spawn specs), and what only explain can show is
// left out with the reason.
func TestIgnoreModeWithoutExplainRunsWhatObserves(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the linux-ignore lane")
	}
	seed, err := targets.FS.ReadFile("refmux-seed.yaml")
	if err != nil {
		t.Fatal(err)
	}
	noExplain := regexp.MustCompile(`(?ms)^explain:\n(?:  .*?\n)+`).ReplaceAllString(string(seed), "")
	if noExplain == string(seed) || strings.Contains(noExplain, "explain:") {
		t.Fatal("refmux-seed.yaml's explain block was not removed; this test no longer tests anything")
	}
	manifest := filepath.Join(t.TempDir(), "seed-no-explain.yaml")
	if err := os.WriteFile(manifest, []byte(noExplain), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := runner.Run(context.Background(), runner.Options{Target: resolve(t, manifest, ""), Lane: "linux-ignore",
		OutDir: filepath.Join(t.TempDir(), "out"), Log: io.Discard})
	if err != nil {
		t.Fatalf("a manifest in ignore mode without explain: %v", err)
	}
	c := res.Run.Count()
	t.Logf("%d ran, %d passed, %d left out", c.Ran, c.Passed, c.Filtered)
	if !res.Passed() || c.Failed != 0 || c.Ran == 0 {
		t.Fatalf("the lane did not pass: %+v\n%s", c, res.Run.Summary(res.Filter))
	}
	ran := map[string]bool{}
	for _, s := range res.Run.Specs {
		if s.Outcome() == report.Passed {
			ran[s.Name] = true
		}
	}
	for _, want := range []string{
		"compat: a target that reads the class and ignores it keeps the harness and its tools at the control's class when the class resolves to normal from the daemon env, hosted session",
		"cpuclass on Linux, ignore mode (class read, not applied) a direct session starts the direct harness and its tool sleep at the control's class",
		"resolve: the config key round-trips the class through --set and --get, stored in the file under the camelCase key",
		"compat: spawn specs from every daemon generation starts an older daemon's spec (no cpu_class) at the agent host's own class, harness and tools",
	} {
		if !ran[want] {
			t.Errorf("an observing spec did not run and pass: %s", want)
		}
	}
	sum := res.Run.Summary(res.Filter)
	for _, want := range []string{"labelled reads-resolved: target refmux", "ignores the class here and declares no explain", "labelled needs-explain"} {
		if !strings.Contains(sum, want) {
			t.Errorf("the summary does not leave out, with the reason, %q:\n%s", want, sum)
		}
	}
}

// The seed leaves three things open, and a launcher that chooses otherwise than refmux keeps
// every promise: each such build of refmux, under a manifest that does not declare refmux's
// choice, passes its whole lane, the choice's specs left out with their reason. (Declared, each
// fails the choice's spec: the kill matrix shows that.)
func TestEachOpenChoicePassesItsLaneUndeclared(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three whole lanes")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the Linux lanes")
	}
	// Three lanes at once on two cores, beside make unit's other packages.
	t.Setenv(contract.ScaleEnv, "3")
	for _, c := range []struct{ variant, manifest, lane, declaration, label string }{
		{"malformed-as-unset", "refmux.yaml", "linux-idle", "malformed_config", label.ConvMalformedConfigRefuse},
		{"daemon-refuses-start", "refmux.yaml", "linux-idle", "bad_daemon_env", label.ConvBadDaemonEnvSessions},
		{"ignore-unchecked", "refmux-seed.yaml", "linux-ignore", "refuses_when_ignored", label.RefusesClass},
	} {
		t.Run(c.variant, func(t *testing.T) {
			t.Parallel()
			b, err := targets.FS.ReadFile(c.manifest)
			if err != nil {
				t.Fatal(err)
			}
			undeclared := regexp.MustCompile(`(?m)^  `+c.declaration+`:.*\n`).ReplaceAllString(string(b), "")
			if undeclared == string(b) {
				t.Fatalf("%s declares no %s; this test no longer tests anything", c.manifest, c.declaration)
			}
			manifest := filepath.Join(t.TempDir(), "undeclared.yaml")
			os.WriteFile(manifest, []byte(undeclared), 0o644)
			res, err := runner.Run(context.Background(), runner.Options{Target: resolve(t, manifest, "", "variant="+c.variant), Lane: c.lane,
				OutDir: filepath.Join(t.TempDir(), "out"), Log: io.Discard})
			if err != nil {
				t.Fatal(err)
			}
			n := res.Run.Count()
			t.Logf("%s without conventions.%s, %s: %d ran, %d passed, %d left out", c.variant, c.declaration, c.lane, n.Ran, n.Passed, n.Filtered)
			if !res.Passed() || n.Failed != 0 || n.Skipped != 0 || n.Ran == 0 {
				t.Fatalf("an open choice failed its lane: %+v, problems %v\n%s", n, res.Problems, res.Run.Summary(res.Filter))
			}
			if sum := res.Run.Summary(res.Filter); !strings.Contains(sum, "labelled "+c.label+": convention not declared") {
				t.Errorf("the choice's specs (%s) were not left out with their reason:\n%s", c.label, sum)
			}
		})
	}
}

// The other way of each two-way choice is checked when declared: refmux built to choose it passes
// that spec, and the reference, declared so, fails it by the spec's own assertion.
func TestTheOtherWayOfAChoiceIsCheckedWhenDeclared(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suites")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the linux-idle lane")
	}
	b, err := targets.FS.ReadFile("refmux.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ variant, from, to, label string }{
		{"daemon-refuses-start", "bad_daemon_env: refuse-sessions", "bad_daemon_env: refuse-start", label.ConvBadDaemonEnvStart},
		{"malformed-as-unset", "malformed_config: refuse", "malformed_config: as-unset", label.ConvMalformedConfigAsUnset},
	} {
		other := strings.Replace(string(b), c.from, c.to, 1)
		if other == string(b) {
			t.Fatalf("refmux.yaml does not say %q; this test no longer tests anything", c.from)
		}
		manifest := filepath.Join(t.TempDir(), "other-way.yaml")
		os.WriteFile(manifest, []byte(other), 0o644)
		for _, variant := range []string{c.variant, ""} {
			res, err := runner.Run(context.Background(), runner.Options{Target: resolve(t, manifest, "", "variant="+variant), Lane: "linux-idle",
				LabelFilter: c.label, OutDir: filepath.Join(t.TempDir(), "out"), Log: io.Discard})
			if err != nil {
				t.Fatal(err)
			}
			n := res.Run.Count()
			switch {
			case n.Ran == 0:
				t.Errorf("%s declared: no spec labelled %s ran", c.to, c.label)
			// Passed or not as a lane (a label filter leaves out the lane's platform specs, which
			// is a problem of its own): what the choice's specs did.
			case variant != "" && (res.GinkgoErr != nil || n.Failed > 0):
				t.Errorf("refmux %s, declared %s: the spec failed: %+v\n%s", variant, c.to, n, res.Run.Summary(res.Filter))
			case variant == "" && (res.GinkgoErr == nil || !failedInSpec(res.Run)):
				t.Errorf("the reference, declared %s (which it does not do), was not failed by a spec's assertion: %+v", c.to, n)
			}
		}
	}
}

func failedInSpec(r *report.Run) bool {
	for _, s := range r.Specs {
		if s.State == "failed" && s.InSpec {
			return true
		}
	}
	return false
}

// alive is proctable.Alive for a test: a process the test cannot read fails it loudly.
func alive(pid int) bool {
	a, err := proctable.Alive(pid)
	if err != nil {
		panic(err)
	}
	return a
}
