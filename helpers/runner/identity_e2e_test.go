//go:build e2e

package runner_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/classproof/classproof/helpers/report"
)

// reachable is a temporary folder a root kit's launcher user (uid 65534) can read and write:
// t.TempDir's are 0700 on the way, root's alone.
func reachable(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, p := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(dir, 0o1777); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A root kit gives its launcher no root (issue 42): a daemon that writes a sysctl and the kit's
// own oom_score_adj, each with its current value, and sets the kit's scheduling policy to the one
// it has, is refused all three; it holds no capability; its sessions still start at background
// class (the class specs pass); run.json names the launcher's user. Before, as root inside the
// sandbox, every write went through (what CLASSPROOF_LAUNCHER_UID=0 still gives, and says).
func TestARootKitsLauncherHasNoRoot(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and starts runs")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs a root kit: run as root (make test does, on this machine and in container jobs)")
	}
	dir := reachable(t)
	// Each attempt says what the kernel answered; the kit process is the daemon's parent (the
	// suite's test binary, run as root).
	daemon := `kit=$PPID
try() { what=$1; shift; if "$@" 2>/dev/null; then echo "$what: written"; else echo "$what: refused"; fi >>"` + dir + `/said"; }
try core_pattern sh -c 'v=$(cat /proc/sys/kernel/core_pattern) && printf "%s\n" "$v" >/proc/sys/kernel/core_pattern'
try oom_score_adj sh -c "v=\$(cat /proc/$kit/oom_score_adj) && echo \$v >/proc/$kit/oom_score_adj"
try sched_setscheduler sh -c "chrt -p $kit | grep -q SCHED_OTHER && chrt -o -p 0 $kit"
grep -E '^(Uid|CapEff):' /proc/self/status >>"` + dir + `/said"
exec "$@"`
	if err := os.WriteFile(filepath.Join(dir, "daemon.sh"), []byte(daemon+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := hostile(t, `  run: ["{bin}/refmux", daemon,`, `  run: [sh, "`+dir+`/daemon.sh", "{bin}/refmux", daemon,`,
		"name: refmux\n", "name: refmux\nwrites: [\""+dir+"\"]\n")
	for _, c := range []struct {
		name, env, says string
		root            bool
	}{
		// A uid of the run's own (identity.ForRun), from systemd's DynamicUser range.
		{"dropped", "CLASSPROOF_LAUNCHER_UID=", `^uid (6[1-5]\d{3}) gid (6[1-5]\d{3}), capabilities 0000000000000000 \(the run's own`, false},
		{"kept root by choice", "CLASSPROOF_LAUNCHER_UID=0", `^uid 0 gid 0`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Root's, for the daemon to append to: what the run's uid leaves in a shared folder
			// its sweep removes once the run ends (issue 68), and this test reads it after.
			if err := os.WriteFile(filepath.Join(dir, "said"), nil, 0o666); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(filepath.Join(dir, "said"), 0o666); err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			code, log, _ := runCLI(t, strings.Fields(c.env), "run", "--target", m, "--suite", "./suites/cpuclass", "--out", out)
			said, _ := os.ReadFile(filepath.Join(dir, "said"))
			var meta report.Meta
			b, _ := os.ReadFile(filepath.Join(out, "run.json"))
			jerr := json.Unmarshal(b, &meta)
			if code != 0 || !regexp.MustCompile(`specs: [1-9]\d* ran, [1-9]\d* passed, 0 failed`).MatchString(log) {
				t.Errorf("the class specs with a hostile daemon: exit %d, want 0, all passed:\n%s", code, log)
			}
			id := regexp.MustCompile(c.says).FindStringSubmatch(meta.LauncherIdentity)
			if jerr != nil || id == nil || meta.LauncherRoot != c.root {
				t.Fatalf("run.json: launcher_identity %q, launcher_root %v (%v); want %q, root %v", meta.LauncherIdentity, meta.LauncherRoot, jerr, c.says, c.root)
			}
			want := "refused"
			if c.root {
				want = "written" // root inside the sandbox: what a root kit gave its launcher before
			}
			for _, what := range []string{"core_pattern", "oom_score_adj", "sched_setscheduler"} {
				if !strings.Contains(string(said), what+": "+want) {
					t.Errorf("%s: the daemon's %s write was not %s; it said:\n%s", c.name, what, want, said)
				}
			}
			if !c.root && !regexp.MustCompile(`(?m)^Uid:\s+`+id[1]+`\s.*\nCapEff:\s+0+$`).MatchString(string(said)) {
				t.Errorf("the daemon's own status: want uid %s and no capability; it said:\n%s", id[1], said)
			}
		})
	}
}

// A root kit's launcher command found on PATH only where the launcher's user cannot reach it (a
// python3 from pyenv's shims in root's 0700 home) is one error before the run, naming the user,
// the folder and the ways out (issue 52). Before, the kit found it as root, started it as uid
// 65534, and every spec failed with "fork/exec ...: permission denied".
func TestACommandTheLaunchersUserCannotRunIsNamedBeforeTheRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and starts runs")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs a root kit: run as root (make test does, on this machine and in container jobs)")
	}
	home := filepath.Join(t.TempDir(), "root")
	shims := filepath.Join(home, ".pyenv", "shims")
	if err := os.MkdirAll(shims, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(home, 0o700); err != nil {
		t.Fatal(err)
	}
	interp := "classproof-test-python3"
	if err := os.WriteFile(filepath.Join(shims, interp), []byte("#!/bin/sh\nexec \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	m := hostile(t, `  run: ["{bin}/refmux", daemon,`, `  run: [`+interp+`, "{bin}/refmux", daemon,`)
	out := t.TempDir()
	code, log, _ := runCLI(t, []string{"CLASSPROOF_LAUNCHER_UID=", "PATH=" + shims + string(os.PathListSeparator) + os.Getenv("PATH")},
		"run", "--target", m, "--suite", "./suites/cpuclass", "--out", out)
	if code != 2 {
		t.Errorf("run with daemon.run[0] only below root's 0700 %s: exit %d, want 2 (an unusable launcher)", home, code)
	}
	for _, want := range []string{"daemon.run[0]", "cannot pass through " + home, "CLASSPROOF_LAUNCHER_UID=0"} {
		if !strings.Contains(log, want) {
			t.Errorf("the preflight does not say %q:\n%s", want, log)
		}
	}
	// Checked as the run's own uid, which its processes would run as.
	if !regexp.MustCompile(`uid 6[1-5]\d{3}`).MatchString(log) {
		t.Errorf("the preflight does not name the run's own uid:\n%s", log)
	}
	if strings.Contains(log, "permission denied") || regexp.MustCompile(`specs: \d+ ran`).MatchString(log) {
		t.Errorf("specs ran, or an exec said a bare permission denied:\n%s", log)
	}
}
