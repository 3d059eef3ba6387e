//go:build e2e

package runner_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/classproof/classproof/fixtures/targets"
	"github.com/classproof/classproof/helpers/base/proctable"
	"github.com/classproof/classproof/helpers/report"
)

// What the verdict rests on is out of the launcher's reach (issue 32): its build step and what
// it leaves behind cannot change the suites' binaries or the reports, and where no sandbox
// stops them, the run and the gate see the change.

// withBuild writes the embedded manifest name with its build step's run line replaced.
func withBuild(t *testing.T, name, old, new string) string {
	t.Helper()
	b, err := targets.FS.ReadFile(name)
	if err != nil || !strings.Contains(string(b), old) {
		t.Fatalf("%s no longer has %q; this test no longer wraps it (%v)", name, old, err)
	}
	path := filepath.Join(t.TempDir(), "hostile.yaml")
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A build step that replaces the cached cpuclass.test: the sandbox refuses the write, naming the
// file and build.writes; with the sandbox off the run refuses to run the changed binary, naming
// it, and the next run builds it again.
func TestABuildStepThatReplacesACachedSuiteIsCaught(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and the suites, and starts runs")
	}
	gocache, err := exec.Command("go", "env", "GOCACHE").CombinedOutput()
	if err != nil {
		t.Fatalf("go env GOCACHE: %v\n%s", err, gocache)
	}
	// A cache of its own: the suites it spoils are no other test's.
	env := []string{"XDG_CACHE_HOME=" + t.TempDir(), "GOCACHE=" + strings.TrimSpace(string(gocache))}
	m := withBuild(t, "shmux.yaml", `  run: [install, -m, "0755", "{kit}/fixtures/shmux/shmux", "{bin}/shmux"]`,
		`  run: [sh, -c, 'for f in "$XDG_CACHE_HOME"/classproof/*/suites-*/cpuclass/cpuclass.test; do [ -e "$f" ] || continue; cp /bin/true "$f" || exit 9; done; exec install -m 0755 "$0" "$1"', "{kit}/fixtures/shmux/shmux", "{bin}/shmux"]`)
	run := func(extra string, target string) (int, string) {
		code, out, _ := runCLI(t, append(strings.Fields(extra), env...), "run", "--target", target, "--suite", "./suites/cpuclass", "--focus", oneSpec, "--out", t.TempDir())
		return code, out
	}
	// Built once, cached: the hostile build step finds them.
	if code, out := run("", "embedded:shmux.yaml"); code != 0 {
		t.Fatalf("a first run with the reference build step: exit %d, want 0:\n%s", code, out)
	}
	code, out := run("", m)
	if code != 2 || !strings.Contains(out, "the sandbox (landlock") || !regexp.MustCompile(`refused writes to \S+/cpuclass/cpuclass\.test`).MatchString(out) || !strings.Contains(out, "under build.writes in "+m) {
		t.Errorf("sandboxed: exit %d, want 2 with the refused write named:\n%s", code, out)
	}
	code, out = run("CLASSPROOF_SANDBOX=off", m)
	if code != 2 || !regexp.MustCompile(`\S+/cpuclass/cpuclass\.test is not the binary that was built \(sha256 recorded [0-9a-f]{64}, now [0-9a-f]{64}\).*removed from the cache: the next run builds it again`).MatchString(out) {
		t.Errorf("unsandboxed: exit %d, want 2 naming the changed binary:\n%s", code, out)
	}
	if code, out = run("CLASSPROOF_SANDBOX=off", "embedded:shmux.yaml"); code != 0 {
		t.Errorf("the next run, with the reference build step: exit %d, want 0 (the suite built again):\n%s", code, out)
	}
}

// A process the launcher leaves behind (out of its group, its session and the run's token, with
// no cgroup to hold it) to wait for run.json and rewrite the failed run's reports as passed: on
// Linux it is below the suite process, its subreaper, and is killed at the suite's end as a LEAK
// (issue 54), before run.json exists; the reports stay the ones the run judged. Where nothing
// holds it (macOS has no subreaper) it would get its go: the test rewrites the reports as it would,
// and the sandbox off, the gate sees reports that are not the ones the run judged. Either way the
// gate blocks.
func TestALeftBehindRewriterCannotPassTheGate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and starts runs")
	}
	for i, c := range []struct{ name, env, why string }{
		{"sandboxed", "", "the lane's own run failed"},
		{"unsandboxed", "CLASSPROOF_SANDBOX=off", "report.json is not the file the run judged"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, dir := t.TempDir(), t.TempDir()
			// A marker of this run's own: a rewriter another run left must not count as this one's.
			marker := fmt.Sprint(900000 + os.Getpid()%45000*2 + i)
			rewrite := `sed -i 's/"State": *"failed"/"State": "passed"/g; s/"SuiteSucceeded": *false/"SuiteSucceeded": true/g' "` + out + `/report.json"
sed -i 's/failures="[1-9][0-9]*"/failures="0"/g' "` + out + `/junit.xml"
sed -i 's/"passed": false/"passed": true/' "` + out + `/run.json"`
			rewriter := `while [ ! -e "` + out + `/run.json" ]; do sleep 0.05; done; sleep 0.3
` + rewrite + `
exec sleep ` + marker
			daemon := `(setsid env -i PATH=/usr/bin:/bin sh "` + dir + `/rewriter.sh" ` + marker + ` </dev/null >/dev/null 2>&1 &); exec "$@"`
			for name, body := range map[string]string{"rewriter.sh": rewriter, "daemon.sh": daemon} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			m := hostile(t, `  run: ["{bin}/refmux", daemon,`, `  run: [sh, "`+dir+`/daemon.sh", "{bin}/refmux", daemon,`)
			env := append(strings.Fields(c.env), "CLASSPROOF_CGROUP=off")
			code, log, _ := runCLI(t, env, "run", "--target", m, "--var", "variant=noclass", "--suite", "./suites/cpuclass", "--focus", oneSpec, "--out", out)
			if code != 1 {
				t.Fatalf("the run of a launcher with no class step: exit %d, want 1:\n%s", code, log)
			}
			if !regexp.MustCompile(`(?s)leak scan: processes still below this suite process.*?rewriter\.sh`).MatchString(log) {
				t.Errorf("the rewriter left below the suite process is not named as a leak:\n%s", log)
			}
			if left := marked(t, marker); len(left) > 0 {
				t.Errorf("the rewriter outlived the run: %s", proctable.DescribeAll(left))
			}
			var meta report.Meta
			b, _ := os.ReadFile(filepath.Join(out, "run.json"))
			if err := json.Unmarshal(b, &meta); err != nil || len(meta.Changed(out)) > 0 || meta.Passed {
				t.Errorf("the reports changed after the run: %v %q passed=%v", err, meta.Changed(out), meta.Passed)
			}
			if c.env != "" {
				// Where no subreaper holds it, the rewriter has its go; the sandbox is off, so its
				// writes land.
				if b, err := exec.Command("sh", "-c", rewrite).CombinedOutput(); err != nil {
					t.Fatalf("rewriting the reports: %v\n%s", err, b)
				}
			}
			code, verdict, _ := runCLI(t, nil, "gate", "--reports", out, "--required", "", "--lanes", "linux-idle")
			if code != 1 || !strings.Contains(verdict, "classproof gate: BLOCKED") || !strings.Contains(verdict, c.why) {
				t.Errorf("the gate over the folder: exit %d, want 1 blocked for %q:\n%s", code, c.why, verdict)
			}
			if c.env != "" {
				// A kernel without Landlock, simulated: the run says so, and a gate that requires
				// a sandbox blocks the lane for it.
				code, strict, _ := runCLI(t, nil, "gate", "--reports", out, "--required", "", "--lanes", "linux-idle", "--require-sandbox")
				if !strings.Contains(log, "sandbox: none: turned off by CLASSPROOF_SANDBOX=off") || code != 1 ||
					!strings.Contains(strict, "the launcher ran without a sandbox (run.json: \"none: turned off by CLASSPROOF_SANDBOX=off\")") {
					t.Errorf("unsandboxed: the run or gate --require-sandbox does not say so (exit %d):\n%s\n%s", code, log, strict)
				}
			}
		})
	}
}

// An agent host that runs under a pty, as one run by tmux, script(1), node-pty or expect does:
// the sandbox lets it open /dev/ptmx and its /dev/pts/N, and the hosted specs pass with the
// sandbox on (before, every one failed: "script: failed to create pseudo-terminal: Permission
// denied").
func TestAnAgentHostUnderAPtyPassesSandboxed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and starts a run")
	}
	if _, err := exec.LookPath("script"); err != nil {
		t.Fatalf("script(1) is missing (util-linux; ci/tools installs it): %v", err)
	}
	m := hostile(t, `run: ["{bin}/refmux", host, --socket, "{host_socket}", --linux-class, idle]`,
		`run: [script, -qfec, "exec {bin}/refmux host --socket {host_socket} --linux-class idle", /dev/null]`)
	code, out, _ := runCLI(t, nil, "run", "--target", m, "--suite", "./suites/cpuclass", "--focus", "hosted", "--out", t.TempDir())
	if code != 0 || !strings.Contains(out, "sandbox: landlock") || !regexp.MustCompile(`specs: [1-9]\d* ran, [1-9]\d* passed, 0 failed`).MatchString(out) {
		t.Errorf("a pty-hosted launcher, sandboxed: exit %d, want 0 with hosted specs passed under landlock:\n%s", code, out)
	}
}

// On an older kernel's Landlock (capped here: GitHub's hosted runners have ABI 4 or 5) and with
// none, both Linux lanes pass, and the run says what its sandbox did not enforce, in its log and
// in run.json.
func TestBothLanesPassOnAnOlderLandlockAndSayWhatItLacks(t *testing.T) {
	if testing.Short() {
		t.Skip("starts six runs")
	}
	for _, c := range []struct{ value, says, lacks string }{
		{"abi4", "landlock ABI 4", "signals and abstract unix sockets not scoped"},
		{"abi5", "landlock ABI 5", "signals and abstract unix sockets not scoped"},
		{"off", "sandbox: none: turned off", "writes not confined"},
	} {
		for _, target := range []string{"embedded:refmux.yaml", "embedded:refmux-seed.yaml"} {
			out := t.TempDir()
			// The launcher's identity as a user would have it (TestMain keeps root's for the others).
			code, log, _ := runCLI(t, []string{"CLASSPROOF_SANDBOX=" + c.value, "CLASSPROOF_LAUNCHER_UID="}, "run", "--target", target, "--suite", "./suites/cpuclass", "--out", out)
			if code != 0 || !strings.Contains(log, c.says) || (c.value != "off" && !strings.Contains(log, "not enforced: "+c.lacks)) {
				t.Errorf("CLASSPROOF_SANDBOX=%s, %s: exit %d, want 0 saying %q and what is not enforced (%q):\n%s", c.value, target, code, c.says, c.lacks, log)
				continue
			}
			var meta report.Meta
			b, err := os.ReadFile(filepath.Join(out, "run.json"))
			if err == nil {
				err = json.Unmarshal(b, &meta)
			}
			if err != nil || !strings.Contains(strings.Join(meta.SandboxLacks, "; "), c.lacks) || meta.Sandboxed != (c.value != "off") {
				t.Errorf("CLASSPROOF_SANDBOX=%s, %s: run.json sandboxed %v, sandbox_lacks %q (%v); want %q listed", c.value, target, meta.Sandboxed, meta.SandboxLacks, err, c.lacks)
			}
			// A root kit starts its launcher as a uid of the run's own; an unprivileged one, as
			// itself.
			uid := fmt.Sprintf("uid %d ", os.Geteuid())
			if os.Geteuid() == 0 {
				uid = `uid 6[1-5]\d{3} gid 6[1-5]\d{3}, capabilities 0+ \(the run's own`
			}
			if !regexp.MustCompile("^"+uid).MatchString(meta.LauncherIdentity) || meta.LauncherRoot || !regexp.MustCompile("launcher identity: "+uid).MatchString(log) {
				t.Errorf("CLASSPROOF_SANDBOX=%s, %s: run.json launcher_identity %q, launcher_root %v; want %q..., not root, and the same in the log", c.value, target, meta.LauncherIdentity, meta.LauncherRoot, uid)
			}
		}
	}
}
