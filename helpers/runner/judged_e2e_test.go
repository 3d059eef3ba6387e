//go:build e2e

package runner_test

import (
	"regexp"
	"strings"
	"testing"
)

// A launcher whose session command runs the handed harness itself at normal, waits for its
// report, and then kills it (its tool sleep lives on at normal) or has its main thread exit (the
// harness runs on at normal, /proc/PID/exe reading ENOENT), before it asks its daemon properly
// (issue 68): the kit judged only the daemon's harness, the one the report names, and the run
// passed (cpuclass 6 passed, 0 failed). The first harness recorded itself in the ledger for the
// report path the kit handed out: it is named, with what it left running and its class, with
// the run's cgroup and without one.
func TestAHarnessGoneBeforeTheKitLooksIsJudged(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and starts a run")
	}
	for _, c := range []struct{ variant, want string }{
		{"harness-killed", `harness pid \d+ \(started at \d+, --report \S+report-\d+\.json, as it recorded itself in the run's pid ledger\) has ended; the kit never judged it.*still running: its tool sleep pid \d+: ps cls TS`},
		{"harness-leader-exits", `harness pid \d+.*(cannot read its executable|its executable cannot be read)`},
	} {
		for _, env := range []string{"", "CLASSPROOF_CGROUP=off"} {
			out := t.TempDir()
			code, log, _ := runCLI(t, strings.Fields(env), "run", "--var", "variant="+c.variant, "--suite", "./suites/cpuclass", "--focus", oneSpec, "--out", out)
			if code != 1 || !regexp.MustCompile(c.want).MatchString(log) {
				t.Errorf("%s %s: exit %d, want 1 naming the harness the kit never judged (%s):\n%s", c.variant, env, code, c.want, log)
			}
		}
	}
}
