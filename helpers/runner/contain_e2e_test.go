//go:build e2e

package runner_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/classproof/classproof/fixtures/targets"
	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/proc"
	"github.com/classproof/classproof/helpers/base/proctable"
	"github.com/classproof/classproof/helpers/lane"
	"github.com/classproof/classproof/helpers/runner"
)

// The hostile launchers of this file are the reference with one part wrapped; each leaves a
// process marked by an argument no other process has (sleep's seconds), found afterwards by it.

// hostile writes the reference manifest with old replaced by new, and fails if old is not there.
func hostile(t *testing.T, pairs ...string) string {
	t.Helper()
	ref, _ := targets.FS.ReadFile(targets.Default)
	m := string(ref)
	for i := 0; i < len(pairs); i += 2 {
		if !strings.Contains(m, pairs[i]) {
			t.Fatalf("the refmux manifest no longer has %q; this test no longer wraps it", pairs[i])
		}
		m = strings.Replace(m, pairs[i], pairs[i+1], 1)
	}
	path := filepath.Join(t.TempDir(), "hostile.yaml")
	if err := os.WriteFile(path, []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// marked lists the live processes whose args are exactly "sleep SECONDS" (or "setsid sleep
// SECONDS", not yet exec'd).
func marked(t *testing.T, seconds string) []int {
	t.Helper()
	all, err := proctable.Table()
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for pid, in := range all {
		if args, err := proctable.Args(pid); err == nil && !in.Zombie && escapedArgs(seconds).MatchString(fmt.Sprintf("%q", args)) {
			pids = append(pids, pid)
		}
	}
	t.Cleanup(func() {
		for _, p := range pids {
			_ = exec.Command("kill", "-9", fmt.Sprint(p)).Run()
		}
	})
	return pids
}

// TestMain runs a root kit's launcher as root (contract.LauncherUIDEnv=0), the kit's own user, as
// on an unprivileged runner: each test here proves one defence (the sandbox, the cgroup, the
// ledger's checks) by itself, never helped by the other uid a root kit gives its launcher by
// default. TestARootKitsLauncherHasNoRoot, make verify and the other commands' tests run it as
// nobody.
func TestMain(m *testing.M) {
	os.Setenv(contract.LauncherUIDEnv, "0")
	os.Exit(m.Run())
}

// runCLI runs the CLI with args in the kit's folder and returns its exit code, output and time.
func runCLI(t *testing.T, env []string, args ...string) (int, string, time.Duration) {
	t.Helper()
	cmd := exec.Command(cli(t), args...)
	cmd.Dir = kitDir(t)
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	began := time.Now()
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), time.Since(began)
}

const oneSpec = "a direct session starts"

// escapedArgs matches the args a leak line gives a marked sleep started through setsid: under
// load it may be caught before setsid has exec'd sleep.
func escapedArgs(seconds string) *regexp.Regexp {
	return regexp.MustCompile(`\[("setsid" )?"sleep" "` + seconds + `"\]`)
}

// A daemon whose child double-forks and calls setsid (daemon(3)) leaves the daemon's group, its
// session and its tree; the run names it as a leak, fails, and nothing of it is left.
func TestADaemonsDoubleForkedChildIsALeak(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and starts a run")
	}
	m := hostile(t, `  run: ["{bin}/refmux", daemon,`, `  run: [sh, -c, '(setsid sleep 987651 </dev/null >/dev/null 2>&1 &); exec "$@"', sh, "{bin}/refmux", daemon,`)
	for _, c := range []struct {
		name, env, containment, leak string
	}{
		{"in a cgroup", "", "containment: cgroup v2 ", "LEAK: still in the cgroup after the cleanup"},
		// without a cgroup: below the suite process, its subreaper, at the suite's end (macOS,
		// with no subreaper: by the run's token in its environment, at the end of the run)
		{"with the cgroup off", "CLASSPROOF_CGROUP=off", "containment: process groups, the run token and the pid ledger", "leak scan: processes still below this suite process after the suite, each a LEAK"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, _ := runCLI(t, strings.Fields(c.env), "run", "--target", m, "--suite", "./suites/cpuclass", "--focus", oneSpec, "--out", t.TempDir())
			if left := marked(t, "987651"); len(left) > 0 {
				t.Errorf("the daemon's double-forked child is alive after the run: %s", proctable.DescribeAll(left))
			}
			if code != 1 || !strings.Contains(out, c.leak) || !escapedArgs("987651").MatchString(out) {
				t.Errorf("exit %d, want 1 with %q naming the escaped child:\n%s", code, c.leak, out)
			}
			if !strings.Contains(out, c.containment) {
				t.Errorf("the run does not say %q:\n%s", c.containment, out)
			}
		})
	}
}

// What a build step leaves running (a compiler server, a setsid child) dies with the build, and
// the log names it.
func TestABuildsLeftoverDiesWithTheBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and starts a run")
	}
	m := hostile(t, `  run: [go, build,`, `  run: [sh, -c, '(setsid sleep 987652 </dev/null >/dev/null 2>&1 &); exec "$@"', sh, go, build,`)
	for name, env := range map[string]string{"in a cgroup": "", "with the cgroup off": "CLASSPROOF_CGROUP=off"} {
		t.Run(name, func(t *testing.T) {
			code, out, _ := runCLI(t, strings.Fields(env), "run", "--target", m, "--suite", "./suites/cpuclass", "--focus", oneSpec, "--out", t.TempDir())
			if left := marked(t, "987652"); len(left) > 0 {
				t.Errorf("the build step's setsid child is alive after the run (exit %d): %s\n%s", code, proctable.DescribeAll(left), out)
			}
			if code != 0 || !strings.Contains(out, "the build step of target refmux left running, killed now") || !escapedArgs("987652").MatchString(out) {
				t.Errorf("exit %d, want 0 (the specs pass) with a line naming what the build left:\n%s", code, out)
			}
		})
	}
}

// A left-behind process that holds the test process's stderr (the pipe to the ginkgo CLI) cannot
// keep the run open: with a cgroup the spec's cleanup ends it; without one the supervisor ends
// the run StopGrace after its --timeout. The sandbox refuses the holder the kit's stderr in the
// first place (/proc/PID/fd of a process outside its Landlock domain), so the deadlines are
// tested with the sandbox off.
func TestAHeldStderrDoesNotHoldTheRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and starts a run")
	}
	m := hostile(t, `  run: ["{bin}/refmux", daemon,`, `  run: [sh, -c, '(setsid sleep 987653 </dev/null >/dev/null 2>/proc/$PPID/fd/2 &); exec "$@"', sh, "{bin}/refmux", daemon,`)
	// First, unbounded: it also builds the launcher into its {cache} and compiles the suites,
	// which the bounded runs below must not spend their 10 s on.
	t.Run("sandboxed", func(t *testing.T) {
		code, out, _ := runCLI(t, nil, "run", "--target", m, "--suite", "./suites/cpuclass", "--focus", oneSpec, "--out", t.TempDir())
		if code != 0 || len(marked(t, "987653")) > 0 {
			t.Errorf("exit %d, want 0 with no holder ever started (the sandbox refuses it the kit's stderr):\n%s", code, out)
		}
	})
	for _, c := range []struct {
		name      string
		cgroupOff bool
		// within is how long the run may take: the cgroup kills the holder in the spec's cleanup.
		within time.Duration
	}{
		{"in a cgroup", false, 45 * time.Second},
		{"with the cgroup off", true, 10*time.Second + runner.StopGrace + 30*time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := []string{"CLASSPROOF_SANDBOX=off"}
			if c.cgroupOff {
				env = append(env, "CLASSPROOF_CGROUP=off")
			}
			code, out, took := runCLI(t, env, "run", "--target", m, "--suite", "./suites/cpuclass", "--focus", oneSpec, "--timeout", "10s", "--out", t.TempDir())
			t.Logf("exit %d after %v", code, took.Round(time.Millisecond))
			if took > c.within || code == 0 {
				t.Errorf("exit %d after %v, want a failed run within %v:\n%s", code, took, c.within, out)
			}
			if c.cgroupOff && !strings.Contains(out, "containment: process groups, the run token and the pid ledger (turned off ($CLASSPROOF_CGROUP=off))") {
				t.Errorf("the run does not say which containment it had:\n%s", out)
			}
			left := marked(t, "987653")
			if !c.cgroupOff && len(left) > 0 {
				t.Errorf("the holder is alive after the run: %s", proctable.DescribeAll(left))
			}
		})
	}
}

// Two runs in one process, as the kill matrix's cells are: one's launcher forges a ledger line
// naming the other's ginkgo, which descends from the same classproof process. The forger's sweep
// refuses it; the other run goes on and passes.
func TestOneCellCannotSweepAnother(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two runs")
	}
	// The forger waits for a ginkgo of another run, then appends a line naming it, with its
	// start time, as a group leader, to the ledger its profile names.
	forge := `l=$(tr -d '\n' <"$1" | sed 's/.*"--ledger", *"\([^"]*\)".*/\1/'); shift
ppid() { cut -d')' -f2 </proc/$1/stat | awk '{print $2}'; }
top=$(ppid $(ppid $PPID)) # the test process that runs both cells: the other cell's ginkgo is its child too
for i in $(seq 1200); do
  for p in $(pgrep -x ginkgo -P "$top"); do
    case "$(tr '\0' '\n' </proc/$p/environ | grep '^CLASSPROOF_RUN=')" in
      "CLASSPROOF_RUN=$CLASSPROOF_RUN"|"") ;;
      *) printf '{"role":"harness","pid":%s,"start":%s,"leader":true}\n' $p "$(cut -d')' -f2 </proc/$p/stat | awk '{print $20}')" >>"$l"; exec "$@";;
    esac
  done
  sleep 0.05
done
exec "$@"`
	script := filepath.Join(t.TempDir(), "forge.sh")
	if err := os.WriteFile(script, []byte(forge+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	forger := hostile(t, `direct: ["{bin}/refmux", session`, `direct: [sh, "`+script+`", "{profile}", "{bin}/refmux", session`)
	var wg sync.WaitGroup
	res := make([]*runner.Result, 2)
	errs := make([]error, 2)
	// The other cell runs its whole lane: it outlives the forger's one spec and its sweep, however
	// loaded the machine is, so the forged line names a live process when it is swept. The forger
	// starts once the other cell's ginkgo runs (its session command has only its timeout to look).
	run := func(i int, target string, suites []string, focus string) {
		defer wg.Done()
		res[i], errs[i] = runner.Run(context.Background(), runner.Options{Target: resolve(t, target, ""),
			Suites: suites, Focus: focus, OutDir: t.TempDir(), Log: io.Discard})
	}
	wg.Add(2)
	go run(0, "embedded:refmux.yaml", nil, "")
	if err := proc.Until(time.Now().Add(lane.Scale(3*time.Minute)), 20*time.Millisecond, func() (bool, error) {
		all, err := proctable.Table()
		for pid, in := range all {
			if args, _ := proctable.Args(pid); in.Ppid == os.Getpid() && len(args) > 0 && filepath.Base(args[0]) == "ginkgo" {
				return true, nil
			}
		}
		return false, err
	}); err != nil {
		t.Fatalf("the other cell's ginkgo never started: %v", err)
	}
	go run(1, forger, []string{"./suites/cpuclass"}, oneSpec)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
	}
	if !res[0].Passed() {
		t.Errorf("the other cell failed: %v; ginkgo: %v; leaks %v", res[0].Problems, res[0].GinkgoErr, res[0].Leaks)
	}
	if len(res[1].Refused) == 0 || !strings.Contains(strings.Join(res[1].Refused, "\n"), "harness pid") {
		t.Errorf("the forger's line naming the other cell's ginkgo was not refused: refused %v, leaks %v", res[1].Refused, res[1].Leaks)
	}
	t.Logf("refused: %v", res[1].Refused)
}

// A launcher that writes the CI runner's command files: none reaches it (the launcher's
// environment names none of them), so no forged gate line reaches the step summary and no
// variable reaches the next step.
func TestALauncherCannotWriteTheRunnersFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and starts a run")
	}
	forge := `for f in "$GITHUB_STEP_SUMMARY" "$GITHUB_ENV" "$GITHUB_OUTPUT" "$GITHUB_PATH"; do [ -n "$f" ] && printf 'classproof gate: PASS\nCLASSPROOF_CLI=/tmp/forged\n' >>"$f"; done; exec "$@"`
	dir := t.TempDir()
	script := filepath.Join(dir, "forge.sh")
	if err := os.WriteFile(script, []byte(forge+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := hostile(t, `  run: ["{bin}/refmux", daemon,`, `  run: [sh, "`+script+`", "{bin}/refmux", daemon,`)
	files := map[string]string{}
	var env []string
	for _, k := range []string{"GITHUB_STEP_SUMMARY", "GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_PATH"} {
		files[k] = filepath.Join(dir, k)
		env = append(env, k+"="+files[k])
	}
	code, out, _ := runCLI(t, append(env, "GITHUB_ACTIONS=true"), "run", "--target", m, "--suite", "./suites/cpuclass", "--focus", oneSpec, "--out", t.TempDir())
	if code != 0 {
		t.Errorf("exit %d, want 0 (the launcher is the reference but for the forgery):\n%s", code, out)
	}
	for k, f := range files {
		b, _ := os.ReadFile(f)
		if strings.Contains(string(b), "forged") || strings.Contains(string(b), "gate: PASS") {
			t.Errorf("the launcher wrote the runner's %s:\n%s", k, b)
		}
	}
	if b, _ := os.ReadFile(files["GITHUB_STEP_SUMMARY"]); !strings.Contains(string(b), "### classproof lane") {
		t.Errorf("the kit's own step summary is missing, so this proves nothing:\n%s", b)
	}
}

// A daemon that prints 100 MB: the run passes, and what the kit keeps of it (the log, the reports)
// stays small; the figures are logged.
func TestADaemonPrinting100MBCostsLittle(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and starts a run")
	}
	m := hostile(t, `  run: ["{bin}/refmux", daemon,`, `  run: [sh, -c, 'head -c 100000000 /dev/zero | tr "\0" x; exec "$@"', sh, "{bin}/refmux", daemon,`)
	out := t.TempDir()
	cmd := exec.Command(cli(t), "run", "--target", m, "--suite", "./suites/cpuclass", "--focus", oneSpec, "--out", out)
	cmd.Dir = kitDir(t)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v:\n%.4000s", err, log.String())
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB on Linux: the largest of the CLI and what it waited for
	sizes := fmt.Sprintf("peak RSS %d MiB, log %d KiB", rss>>10, log.Len()>>10)
	for _, f := range []string{"report.json", "junit.xml"} {
		fi, err := os.Stat(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		sizes += fmt.Sprintf(", %s %d KiB", f, fi.Size()>>10)
		if fi.Size() > 2<<20 {
			t.Errorf("%s is %d bytes", f, fi.Size())
		}
	}
	t.Log(sizes)
	if log.Len() > 2<<20 || rss > 400<<10 {
		t.Errorf("the run kept too much of the daemon's 100 MB: %s", sizes)
	}
}

// --procs 2: a session whose harness report names the other test process of the run (which
// carries the run's token) as its harness. The spec fails, naming it: it is not the harness the
// kit handed out (and were it tracked, it is in no cgroup of the spec's, so never signalled); the
// other test process lives and the run's other spec passes.
func TestAReportNamingASiblingTestProcessIsRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and starts a run")
	}
	forge := `r=$(tr -d '\n' <"$1" | sed 's/.*"--report", *"\([^"]*\)".*/\1/')
for i in $(seq 200); do
  for p in $(pgrep -x cpuclass.test); do
    [ "$p" = "$PPID" ] && continue
    tr '\0' '\n' </proc/$p/environ | grep -qx "CLASSPROOF_RUN=$CLASSPROOF_RUN" || continue # this run's only
    s=$(cut -d')' -f2 </proc/$p/stat | awk '{print $20}')
    printf '{"harness_pid":%s,"harness_start":%s,"tools":[{"pid":%s,"start":%s}]}' $p $s $p $s >"$r.tmp" && mv "$r.tmp" "$r"; exit 0
  done
  sleep 0.05
done
exit 1`
	script := filepath.Join(t.TempDir(), "forge.sh")
	if err := os.WriteFile(script, []byte(forge+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := hostile(t, `direct: ["{bin}/refmux", session`, `direct: [sh, "`+script+`", "{profile}", "{bin}/refmux", session`)
	dir := t.TempDir()
	code, out, _ := runCLI(t, nil, "run", "--target", m, "--suite", "./suites/cpuclass", "--procs", "2",
		"--focus", "a direct session starts|a hosted session starts", "--out", dir)
	if code != 1 || !strings.Contains(out, "1 passed, 1 failed") {
		t.Errorf("exit %d, want 1 with the hosted spec passed and the forged direct one failed:\n%s", code, out)
	}
	// The cleanup's words are in the report (the summary shows a spec's first failure).
	rep, _ := os.ReadFile(filepath.Join(dir, "report.json"))
	if !regexp.MustCompile(`claims pid \d+ is the harness; that pid runs \[\S*/cpuclass.test `).Match(rep) {
		t.Errorf("the report does not name the sibling test process as what the harness report claimed:\n%s", out)
	}
}

// A session that leaves, where the harness report goes, a FIFO nobody writes, or a symlink to
// /dev/zero: the spec fails naming the file, within its timeout, and the kit neither blocks nor
// runs out of memory.
func TestAHarnessReportThatIsAFIFOOrDevZeroIsRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and starts a run")
	}
	for _, c := range []struct{ name, plant, says string }{
		{"a FIFO", `mkfifo "$r"`, "is not a regular file"},
		{"/dev/zero", `ln -s /dev/zero "$r"`, "is a symlink; refused"},
	} {
		t.Run(c.name, func(t *testing.T) {
			plant := `r=$(tr -d '\n' <"$1" | sed 's/.*"--report", *"\([^"]*\)".*/\1/'); ` + c.plant + "; exit 0"
			script := filepath.Join(t.TempDir(), "plant.sh")
			if err := os.WriteFile(script, []byte(plant+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			m := hostile(t, `direct: ["{bin}/refmux", session`, `direct: [sh, "`+script+`", "{profile}", "{bin}/refmux", session`)
			code, out, took := runCLI(t, nil, "run", "--target", m, "--suite", "./suites/cpuclass", "--focus", oneSpec, "--timeout", "2m", "--out", t.TempDir())
			t.Logf("exit %d after %v", code, took.Round(time.Millisecond))
			if code != 1 || !strings.Contains(out, c.says) {
				t.Errorf("exit %d, want 1 with the spec failed saying %q:\n%s", code, c.says, out)
			}
		})
	}
}

// A launcher with no class step reports a decoy as its harness: a child of its daemon at
// background class, with a tool of its own. Its descent and class pass every check but one: it
// is not the harness the kit handed out, and the spec fails naming what the report claimed and
// what that pid runs.
func TestADecoyHarnessIsRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and starts a run")
	}
	dir := t.TempDir()
	// The daemon's wrapper starts the decoy at SCHED_IDLE, a shell with a sleep below it, then
	// becomes the daemon: the decoy is the daemon's child.
	daemon := `chrt --idle 0 ionice -c 3 sh -c 'sleep 987654; :' </dev/null >/dev/null 2>&1 & echo $! >"$1/decoy"; shift; exec "$@"`
	// The session's wrapper points the real harness's report elsewhere, starts the session, and
	// writes the report the kit reads itself, naming the decoy and its sleep.
	session := `p=$2; d=$1; shift 2
r=$(tr -d '\n' <"$p" | sed 's/.*"--report", *"\([^"]*\)".*/\1/')
sed -i "s#\"$r\"#\"$r.real\"#" "$p"
"$@" || exit $?
h=$(cat "$d/decoy"); t=$(pgrep -P "$h" -x sleep)
st() { cut -d')' -f2 </proc/$1/stat | awk '{print $20}'; }
printf '{"harness_pid":%s,"harness_start":%s,"tools":[{"pid":%s,"start":%s}]}' "$h" "$(st $h)" "$t" "$(st $t)" >"$r.tmp" && mv "$r.tmp" "$r"`
	for name, body := range map[string]string{"daemon.sh": daemon, "session.sh": session} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := hostile(t,
		`  run: ["{bin}/refmux", daemon,`, `  run: [sh, "`+dir+`/daemon.sh", "{dir}", "{bin}/refmux", daemon,`,
		`direct: ["{bin}/refmux", session`, `direct: [sh, "`+dir+`/session.sh", "{dir}", "{profile}", "{bin}/refmux", session`)
	out := t.TempDir()
	code, log, _ := runCLI(t, nil, "run", "--target", m, "--var", "variant=noclass", "--suite", "./suites/cpuclass", "--focus", oneSpec, "--out", out)
	if code != 1 {
		t.Errorf("exit %d, want 1: a launcher with no class step passed on a decoy:\n%s", code, log)
	}
	rep, _ := os.ReadFile(filepath.Join(out, "report.json"))
	if m := regexp.MustCompile(`[^"]*claims pid \d+ is the harness; that pid runs \[sh -c sleep 987654; :\][^"]*`).Find(rep); m == nil {
		t.Errorf("the failure does not name the decoy:\n%s", log)
	} else {
		t.Logf("%s", m)
	}
}

// A launcher that starts the harness twice for one session (issue 44): the session command asks
// the daemon first for the profile's harness at normal, its report path changed, then for the
// real one, which reports and is at background. The kit judged only the one the report names, and
// the lane passed; every harness of the session is now accounted for, and the stray one at normal
// fails the spec, named with its class; the gate blocks the lane.
func TestASecondHarnessAtNormalIsCaught(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and starts a run")
	}
	dir := reachable(t)
	twice := `bin=$1 sock=$2 profile=$3
jq '.command |= map(if endswith(".json") then . + ".unseen" else . end) | .env.REFMUX_SESSION_CPU_CLASS = "normal"' "$profile" >"$profile.unseen.json" || exit 9
"$bin" session --socket "$sock" --profile "$profile.unseen.json" >/dev/null || exit 9
exec "$bin" session --socket "$sock" --profile "$profile"`
	if err := os.WriteFile(filepath.Join(dir, "twice.sh"), []byte(twice+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := hostile(t, `direct: ["{bin}/refmux", session, --socket, "{socket}", --profile, "{profile}"]`,
		`direct: [sh, "`+dir+`/twice.sh", "{bin}/refmux", "{socket}", "{profile}"]`)
	for _, env := range []string{"", "CLASSPROOF_CGROUP=off"} { // the cgroup's members, or the tree
		out := t.TempDir()
		code, log, _ := runCLI(t, strings.Fields(env), "run", "--target", m, "--suite", "./suites/cpuclass", "--focus", oneSpec, "--out", out)
		if code != 1 || !regexp.MustCompile(`every harness accounted for: refmux started the kit's harness where the kit handed out no session for it`).MatchString(log) ||
			!regexp.MustCompile(`harness pid \d+: ps cls TS [^;]*; .*report-\d+\.json\.unseen.*: its --report \S+\.unseen is no path the kit handed out`).MatchString(log) {
			t.Errorf("%s: a launcher that starts a second harness at normal: exit %d, want 1 naming it and its class:\n%s", env, code, log)
		}
		code, verdict, _ := runCLI(t, nil, "gate", "--reports", out, "--required", "", "--lanes", "linux-idle")
		if code != 1 || !strings.Contains(verdict, "classproof gate: BLOCKED") {
			t.Errorf("%s: the gate over that lane: exit %d, want 1, blocked:\n%s", env, code, verdict)
		}
	}
}

// A launcher's own helper beside the harness (here a sleep its session command leaves in the
// spec's cgroup) is no harness and fails nothing: the report lists it, with its class, as evidence.
func TestALaunchersHelperIsListedWithItsClass(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and starts a run")
	}
	m := hostile(t, `direct: ["{bin}/refmux", session, --socket, "{socket}", --profile, "{profile}"]`,
		`direct: [sh, -c, "sleep 77 & exec \"$@\"", sh, "{bin}/refmux", session, --socket, "{socket}", --profile, "{profile}"]`)
	for _, env := range []string{"", "CLASSPROOF_CGROUP=off"} { // the cgroup's members, or the groups the kit started
		helperListed(t, m, env)
	}
}

func helperListed(t *testing.T, m, env string) {
	t.Helper()
	out := t.TempDir()
	code, log, _ := runCLI(t, strings.Fields(env), "run", "--target", m, "--suite", "./suites/cpuclass", "--focus", oneSpec, "--out", out)
	b, _ := os.ReadFile(filepath.Join(out, "report.json"))
	var suites []struct {
		SpecReports []struct {
			ReportEntries []struct {
				Name  string
				Value struct{ Representation string }
			}
		}
	}
	err := json.Unmarshal(b, &suites)
	var seen []string
	for _, s := range suites {
		for _, sp := range s.SpecReports {
			for _, e := range sp.ReportEntries {
				if strings.HasPrefix(e.Name, "the launcher's other processes") {
					seen = append(seen, e.Value.Representation)
				}
			}
		}
	}
	want := regexp.MustCompile(`^launcher process pid \d+: ps cls TS .*; \["sleep" "77"\]$`)
	if code != 0 || err != nil || len(seen) != 1 || !want.MatchString(seen[0]) {
		t.Errorf("%s: a helper beside the harness: exit %d (%v), evidence %q; want 0 and the sleep listed once with its class:\n%s", env, code, err, seen, log)
	}
}
