package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/classproof/classproof/helpers/report"
)

// manifestText is a manifest that loads (manifest.Parse), with background on Linux linux.
func manifestText(name, linux string) string {
	return "name: " + name + "\nclass_env: X_CLASS\nbackground: {darwin: unsupported, linux: " + linux + "}\n" +
		"daemon: {run: [\"{bin}/x\", daemon]}\nsession: {direct: [\"{bin}/x\", session, \"{profile}\"]}\n"
}

// foreignDir is a folder of launchers as ../shared/foreign holds them, with files that are not
// manifests beside theirs.
func foreignDir(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	files := map[string]string{
		"README.md":                 "# Foreign launchers\n",
		"cspawn/cspawn.yaml":        manifestText("cspawn", "idle"),
		"cspawn/cspawn-ignore.yaml": manifestText("cspawn", "ignore"),
		"cspawn/Makefile":           "all:\n",
		"cspawn/ci.yml":             "jobs: {build: {runs-on: ubuntu-24.04}}\n", // YAML, no manifest
		"cspawn/src/x.yaml":         manifestText("deeper", "idle"),             // below a launcher's folder: not its manifest
		"nodemux/package.json":      "{}\n",
		"nodemux/nodemux.yaml":      manifestText("nodemux", "idle"),
		"nodemux/mac.yaml":          manifestText("mac", "unsupported"),
	}
	for name, text := range files {
		p := filepath.Join(d, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// spec is one It of a Ginkgo report: passed, or failed in the It with message.
func spec(container, it, message string) types.SpecReport {
	s := types.SpecReport{ContainerHierarchyTexts: []string{container}, LeafNodeType: types.NodeTypeIt, LeafNodeText: it,
		State: types.SpecStatePassed, LeafNodeLocation: types.CodeLocation{FileName: "suites/cpuclass/direct_test.go", LineNumber: 12}}
	if message != "" {
		s.State = types.SpecStateFailed
		s.Failure = types.Failure{Message: message, FailureNodeType: types.NodeTypeIt, Location: s.LeafNodeLocation}
	}
	return s
}

// recorded writes a run's reports as `classproof run` leaves them (report.json, junit.xml, and
// run.json with their digests) into a new folder, and returns it.
func recorded(t *testing.T, lane string, specs ...types.SpecReport) string {
	t.Helper()
	d := t.TempDir()
	passed := true
	for _, s := range specs {
		passed = passed && s.State == types.SpecStatePassed
	}
	rep, err := json.Marshal([]types.Report{{SuiteDescription: "cpuclass", SuiteSucceeded: passed, SpecReports: specs}})
	if err != nil {
		t.Fatal(err)
	}
	junit := []byte("<testsuites></testsuites>\n")
	meta, _ := json.Marshal(report.Meta{Lane: lane, Passed: passed,
		Digests: map[string]string{"report.json": report.Digest(rep), "junit.xml": report.Digest(junit)}})
	for name, b := range map[string][]byte{"report.json": rep, "junit.xml": junit, "run.json": meta} {
		if err := os.WriteFile(filepath.Join(d, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// stubCLI is a classproof that copies the reports in from (if any) into its --out, prints say on
// stderr and exits with code: the kit's part of a run, without a lane run.
func stubCLI(t *testing.T, from, say string, code int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "classproof")
	script := "#!/bin/sh\nwhile [ $# -gt 0 ]; do [ \"$1\" = --out ] && out=$2; shift; done\n"
	if from != "" {
		script += "mkdir -p \"$out\" && cp '" + from + "'/* \"$out\"/\n"
	}
	script += "printf '%s' '" + say + "' >&2\nexit " + string(rune('0'+code)) + "\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func run(t *testing.T, dir, cli string) (int, string) {
	t.Helper()
	var b strings.Builder
	code := guard(config{dir: dir, cli: cli, out: t.TempDir()}, &b)
	return code, b.String()
}

func linuxOnly(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the lanes these manifests have are Linux's")
	}
}

func TestDiscoversEveryManifestAndNothingElse(t *testing.T) {
	linuxOnly(t)
	got, notes, err := discover(foreignDir(t))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, g := range got {
		names = append(names, g.name())
	}
	want := "cspawn linux-ignore (cspawn-ignore.yaml)|cspawn linux-idle (cspawn.yaml)|nodemux linux-idle (nodemux.yaml)"
	if strings.Join(names, "|") != want {
		t.Errorf("runs:\n  got  %s\n  want %s", strings.Join(names, "|"), want)
	}
	all := strings.Join(notes, "\n")
	for _, n := range []string{"ci.yml: not a manifest", "mac.yaml: background.linux is unsupported"} {
		if !strings.Contains(all, n) {
			t.Errorf("the notes do not say %q:\n%s", n, all)
		}
	}
}

func TestAFailedSpecIsNamedWithLauncherLaneSpecAndFirstLine(t *testing.T) {
	linuxOnly(t)
	red := recorded(t, "linux-idle",
		spec("a direct session", "starts the harness at background class", "FAIL direct harness pid 4242: ps cls TS, expected IDL\ncontrol pid 7: ps cls TS"),
		spec("a direct session", "starts the tool sleep at background class", ""))
	code, out := run(t, foreignDir(t), stubCLI(t, red, "", 1))
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	want := "  FAIL cspawn linux-idle (cspawn.yaml): failed: a direct session starts the harness at background class: FAIL direct harness pid 4242: ps cls TS, expected IDL …\n"
	if !strings.Contains(out, want) {
		t.Errorf("the failure is not named as\n%s\nin:\n%s", want, out)
	}
	if strings.Contains(out, "control pid 7") {
		t.Errorf("more than the failure's first line:\n%s", out)
	}
	if !strings.Contains(out, "cspawn linux-idle (cspawn.yaml)") || !strings.Contains(out, "FAILED: 1 passed, 1 failed") {
		t.Errorf("no summary line with the counts:\n%s", out)
	}
	if !strings.Contains(out, "foreign: total: 3 runs, 0 passed, 3 failed, 0 not run; specs 3 passed, 3 failed") {
		t.Errorf("no total:\n%s", out)
	}
}

// A run the kit could not start is named with the kit's own message, all of it on one line.
func TestAnUnusableRunIsNamedWithTheKitsMessage(t *testing.T) {
	linuxOnly(t)
	say := "building\nclassproof run: target manifest x.yaml:\n  daemon.run: missing command\n  session.direct: missing command\n"
	code, out := run(t, foreignDir(t), stubCLI(t, "", say, 2))
	want := "  FAIL nodemux linux-idle (nodemux.yaml): classproof could not run it (exit 2): classproof run: target manifest x.yaml: daemon.run: missing command; session.direct: missing command\n"
	if code != 1 || !strings.Contains(out, want) {
		t.Errorf("exit %d, want 1, and\n%s\nin:\n%s", code, want, out)
	}
}

// Only reports that show every spec passed pass: not an exit 0 alone.
func TestOnlyAGreenReportPasses(t *testing.T) {
	linuxOnly(t)
	green := recorded(t, "linux-idle", spec("a direct session", "starts the harness", ""), spec("a hosted session", "starts the harness", ""))
	red := recorded(t, "linux-idle", spec("a direct session", "starts the harness", "FAIL it did not"))
	for _, c := range []struct {
		name, from string
		code, want int
		says       string
	}{
		{"green, exit 0", green, 0, 0, "foreign: total: 3 runs, 3 passed, 0 failed, 0 not run; specs 6 passed, 0 failed"},
		{"red, exit 0", red, 0, 1, "failed: a direct session starts the harness: FAIL it did not"},
		{"no reports, exit 0", "", 0, 1, "classproof run (exit status 0) left no reports"},
		{"green, exit 1", green, 1, 1, "classproof run ended with exit status 1, yet its reports show no failure"},
	} {
		code, out := run(t, foreignDir(t), stubCLI(t, c.from, "", c.code))
		if code != c.want || !strings.Contains(out, c.says) {
			t.Errorf("%s: exit %d, want %d, saying %q:\n%s", c.name, code, c.want, c.says, out)
		}
	}
}

func TestAMissingFolderPassesSayingSo(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "foreign")
	code, out := run(t, dir, "/nonexistent/classproof")
	if code != 0 || !strings.Contains(out, dir+" does not exist: no foreign launchers to run here") {
		t.Errorf("exit %d, want 0, saying the folder does not exist:\n%s", code, out)
	}
}

func TestAFolderWithoutManifestsFails(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("# nothing\n"), 0o644)
	code, out := run(t, dir, "/nonexistent/classproof")
	if code != 1 || !strings.Contains(out, "holds no manifest") {
		t.Errorf("exit %d, want 1, saying nothing was proved:\n%s", code, out)
	}
}
