//go:build e2e

package runner_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/classproof/classproof/helpers/report"
)

// A harness is what runs the harness's code (issue 54): the session command starts a copy of
// the kit's harness binary (another path and inode), or a memfd holding it, at normal class with
// a report path the kit did not hand out, then the real session. Judged by inode, the copy was no
// harness and the lane passed; judged by content it is one, and the spec fails naming it, with
// and without a cgroup; the gate blocks the lane.
func TestACopiedOrMemfdHarnessIsAHarness(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and starts a run")
	}
	dir := reachable(t)
	memfd := `$^F = 255; # the memfd stays open across exec
my $name = "harness"; my $fd = syscall(319, $name, 0); die "memfd_create: $!" if $fd < 0;
open(my $in, "<:raw", shift @ARGV) or die "$!"; local $/; my $b = <$in>;
open(my $out, ">&=:raw", $fd) or die "$!"; syswrite($out, $b) == length($b) or die "short write";
exec {"/proc/self/fd/$fd"} "harness", @ARGV or die "exec: $!";`
	stray := map[string]string{
		"a copy":  `cp "$h" "$(dirname "$profile")/harness-copy" || exit 9; first='.command[0] = ($d + "/harness-copy")'`,
		"a memfd": `first='.command = ["perl", "` + dir + `/memfd.pl"] + .command'`,
		// a byte past its loaded segments: the same code, another file
		"a padded copy": `cp "$h" "$(dirname "$profile")/harness-pad" && printf x >>"$(dirname "$profile")/harness-pad" || exit 9; first='.command[0] = ($d + "/harness-pad")'`,
		// its section table 1 TiB past its end (e_shoff, at 40 of an ELF64 header): the kernel
		// reads only the program headers and runs it; Go's debug/elf refuses it
		"a copy with no section table": `c="$(dirname "$profile")/harness-shoff"; cp "$h" "$c" && printf '\000\000\000\000\000\001\000\000' | dd of="$c" bs=1 seek=40 conv=notrunc 2>/dev/null || exit 9; first='.command[0] = ($d + "/harness-shoff")'`,
		// the dynamic loader running it: /proc/PID/exe is ld.so
		"the loader": `l=$(ls /lib64/ld-linux-*.so.* /lib/ld-*.so.* 2>/dev/null | head -n 1); [ -n "$l" ] || exit 9; first='.command = ["'"$l"'"] + .command'`,
		"the real":   `first='.'`, // the control: the kit's own file, as before
	}
	if err := os.WriteFile(filepath.Join(dir, "memfd.pl"), []byte(memfd+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, how := range stray {
		twice := `bin=$1 sock=$2 profile=$3
h=$(jq -r '.command[0]' "$profile") d=$(dirname "$profile")
` + how + `
jq --arg d "$d" "$first"' | .command |= map(if endswith(".json") then . + ".unseen" else . end) | .env.REFMUX_SESSION_CPU_CLASS = "normal"' "$profile" >"$profile.unseen.json" || exit 9
"$bin" session --socket "$sock" --profile "$profile.unseen.json" >/dev/null || exit 9
exec "$bin" session --socket "$sock" --profile "$profile"`
		script := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".sh")
		if err := os.WriteFile(script, []byte(twice+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		m := hostile(t, `direct: ["{bin}/refmux", session, --socket, "{socket}", --profile, "{profile}"]`,
			`direct: [sh, "`+script+`", "{bin}/refmux", "{socket}", "{profile}"]`)
		for _, env := range []string{"", "CLASSPROOF_CGROUP=off"} {
			out := t.TempDir()
			code, log, _ := runCLI(t, strings.Fields(env), "run", "--target", m, "--suite", "./suites/cpuclass", "--focus", oneSpec, "--out", out)
			if code != 1 || !regexp.MustCompile(`harness pid \d+: ps cls TS [^;]*; .*report-\d+\.json\.unseen.*: its --report \S+\.unseen is no path the kit handed out`).MatchString(log) {
				t.Errorf("%s, %s: a launcher that starts %s of the harness at normal: exit %d, want 1 naming it and its class:\n%s", name, env, name, code, log)
				continue
			}
			code, verdict, _ := runCLI(t, nil, "gate", "--reports", out, "--required", "", "--lanes", "linux-idle")
			if code != 1 || !strings.Contains(verdict, "classproof gate: BLOCKED") {
				t.Errorf("%s, %s: the gate over that lane: exit %d, want 1, blocked:\n%s", name, env, code, verdict)
			}
		}
	}
}

// Without a cgroup, a session command that double-forks the kit's harness with a clean
// environment (no run token), in a session of its own, with a report path that does not start with
// {dir}/ (/tmp/../tmp/cpPID-N/...: the one folder the sandbox lets it write), before
// the real session: the stray harness is handed to the suite process (a subreaper), which
// accounts for it (the spec fails, naming it), and whatever is left below the suite process after
// its specs is a LEAK (killed). Nothing of it is running after the run.
func TestADoubleForkedHarnessWithoutACgroupIsCaughtAndALeak(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and starts a run")
	}
	dir := reachable(t)
	mark := "stray-" + filepath.Base(dir)
	session := `bin=$1 sock=$2 profile=$3
h=$(jq -r '.command[0]' "$profile") d=$(dirname "$profile")
# a path the launcher may write that does not start with {dir}/ (the sandbox allows {dir} alone)
env -i setsid sh -c '"$1" --report "$2" --tool "$3" --tool-args 987641 & exit 0' sh "$h" "/tmp/..$d/` + mark + `.json" "$(command -v sleep)" </dev/null >/dev/null 2>&1
exec "$bin" session --socket "$sock" --profile "$profile"`
	if err := os.WriteFile(filepath.Join(dir, "fork.sh"), []byte(session+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := hostile(t, `direct: ["{bin}/refmux", session, --socket, "{socket}", --profile, "{profile}"]`,
		`direct: [sh, "`+dir+`/fork.sh", "{bin}/refmux", "{socket}", "{profile}"]`)
	out := t.TempDir()
	code, log, _ := runCLI(t, []string{"CLASSPROOF_CGROUP=off"}, "run", "--target", m, "--suite", "./suites/cpuclass", "--focus", oneSpec, "--out", out)
	if code != 1 || !regexp.MustCompile(`harness pid \d+: ps cls \S+ [^;]*; .*`+mark+`\.json.*: its --report /tmp/\.\./tmp/cp[\w-]+/`+mark+`\.json is no path the kit handed out`).MatchString(log) {
		t.Errorf("a double-forked harness with a clean environment: exit %d, want 1 naming it:\n%s", code, log)
	}
	if !regexp.MustCompile(`(?s)leak scan: processes still below this suite process after the suite, each a LEAK.*?\n\s+pid \d+ [^\n]*` + mark).MatchString(log) {
		t.Errorf("the stray harness, still running after the spec's cleanup, is not named as a LEAK:\n%s", log)
	}
	if code, verdict, _ := runCLI(t, nil, "gate", "--reports", out, "--required", "", "--lanes", "linux-idle"); code != 1 || !strings.Contains(verdict, "classproof gate: BLOCKED") {
		t.Errorf("the gate over that lane: exit %d, want 1, blocked:\n%s", code, verdict)
	}
	if left, _ := exec.Command("pgrep", "-af", mark+"|sleep 987641").Output(); len(left) > 0 {
		t.Errorf("after the run, the stray harness or its tool is still running:\n%s", left)
	}
}

// Without a cgroup and with --procs 2, the lane's suites run at once, each under a ginkgo of its
// own: another suite's test process is a cousin of this one's that carries the run's token. A
// session whose harness report names such a process (of the resolve suite) as its tool: the
// cpuclass spec's cleanup once tied it by the token and SIGKILLed it, and the resolve suite broke
// (a false red of specs the launcher did nothing to). It is never this suite's to signal now (its
// kin reach up to the supervisor), and the report that names it is refused before anything of it
// is tracked (its harness has two report paths); every resolve spec the run selected passes.
func TestAReportNamingACousinSuitesProcessIsNeverKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and starts a run")
	}
	dir := reachable(t)
	session := `p=$1; shift
[ "$(cat /proc/$PPID/comm)" = cpuclass.test ] || exec "$@" # the resolve suite's sessions run as usual
r=$(tr -d '\n' <"$p" | sed 's/.*"--report", *"\([^"]*\)".*/\1/')
# The harness parses its flags as Go does, the last -report winning; the kit reads the first: the
# real harness writes r.real and passes for the one handed out r, whose report this script writes.
jq --arg r "$r" '.command += ["-report=" + $r + ".real"]' "$p" >"$p.tmp" && mv "$p.tmp" "$p" || exit 9
"$@" || exit $?
for i in $(seq 400); do
  if [ -s "$r.real" ] && grep -q '"tools": *\[ *{' "$r.real"; then
    for c in $(pgrep -x resolve.test); do
      tr '\0' '\n' </proc/$c/environ | grep -qx "CLASSPROOF_RUN=$CLASSPROOF_RUN" || continue # this run's only
      s=$(cut -d')' -f2 </proc/$c/stat | awk '{print $20}')
      jq -c --argjson p "$c" --argjson s "$s" '.tools[0].pid = $p | .tools[0].start = $s' "$r.real" >"$r.tmp" && mv "$r.tmp" "$r" && exit 0
    done
  fi
  sleep 0.05
done
exit 1`
	if err := os.WriteFile(filepath.Join(dir, "cousin.sh"), []byte(session+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := hostile(t, `direct: ["{bin}/refmux", session`, `direct: [sh, "`+dir+`/cousin.sh", "{profile}", "{bin}/refmux", session`)
	out := t.TempDir()
	code, log, _ := runCLI(t, []string{"CLASSPROOF_CGROUP=off"}, "run", "--target", m, "--procs", "2",
		"--suite", "./suites/cpuclass", "--suite", "./suites/resolve", "--focus", oneSpec+"|the config key", "--out", out)
	run, err := report.Load(filepath.Join(out, "report.json"), "")
	if err != nil {
		t.Fatalf("exit %d, no report: %v\n%s", code, err, log)
	}
	resolve := 0
	for _, s := range run.Specs {
		if s.Suite == "resolve" && s.Outcome() == report.Passed {
			resolve++
		}
		if s.Suite == "resolve" {
			if s.Outcome() == report.Failed {
				t.Errorf("resolve spec %q: %s (%s), want passed: the cousin suite was broken by the other's cleanup", s.Name, s.State, report.FirstLine(s.Reason))
			}
		}
	}
	if resolve == 0 {
		t.Errorf("no resolve spec passed:\n%s", log)
	}
	// The cleanup's words are in the report (the summary shows a spec's first failure).
	// Refused before it is tracked (the report's harness is ambiguous, and its tool no child of
	// it), or, were it tracked, never tied (a cousin of the kit's).
	refused := regexp.MustCompile(`descends from the kit's own ancestor \d+|harness report \S+ claims pid \d+ is the harness; that pid runs \[[^]]*-report=[^]]*\]`)
	if rep, _ := os.ReadFile(filepath.Join(out, "report.json")); !refused.Match(rep) {
		t.Errorf("the forged tool was not refused as a cousin of the kit's (exit %d):\n%s", code, log)
	}
}
