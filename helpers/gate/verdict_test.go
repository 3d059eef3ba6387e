package gate

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/classproof/classproof/helpers/report"
)

// The gate's rules, one by one, on lane folders written here: a Ginkgo JSON report and run.json
// as `classproof run` writes them. These are fast, so make mutants-kit can run them for every
// mutant; TestGateOnRealReports (gate_e2e_test.go, make e2e) checks the same rules on real runs.

const (
	passed  = "passed"
	failed  = "failed"
	skipped = "skipped" // a runtime Skip: it has a failure location
	leftOut = "left out"
	notRun  = "not run"
)

type spec struct {
	name, state string
	labels      []string
}

// writeLane writes a lane folder under dir: meta as run.json (nil: none) and one suite report.
func writeLane(t *testing.T, dir, name string, meta *report.Meta, suiteOK bool, specs ...spec) {
	t.Helper()
	lane := filepath.Join(dir, name)
	if err := os.MkdirAll(lane, 0o755); err != nil {
		t.Fatal(err)
	}
	rep := types.Report{SuiteDescription: "cpuclass", SuiteSucceeded: suiteOK}
	for _, s := range specs {
		sr := types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: s.name, LeafNodeLabels: s.labels}
		switch s.state {
		case passed:
			sr.State = types.SpecStatePassed
		case failed:
			sr.State = types.SpecStateFailed
			sr.Failure = types.Failure{Message: "ps said TS, expected IDL", FailureNodeType: types.NodeTypeIt, Location: types.CodeLocation{FileName: "a_test.go", LineNumber: 9}}
		case skipped:
			sr.State = types.SpecStateSkipped
			sr.Failure = types.Failure{Message: "needs darwin", Location: types.CodeLocation{FileName: "a_test.go", LineNumber: 7}}
		case leftOut, notRun:
			sr.State = types.SpecStateSkipped // never started: the filter decides which
		default:
			t.Fatalf("unknown state %q", s.state)
		}
		rep.SpecReports = append(rep.SpecReports, sr)
	}
	writeJSON(t, filepath.Join(lane, "report.json"), []types.Report{rep})
	if err := os.WriteFile(filepath.Join(lane, "junit.xml"), []byte("<testsuites/>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if meta != nil {
		// As the CLI finalises them: the digest of each report as written.
		m := *meta
		if m.Digests == nil {
			m.Digests = map[string]string{}
			for _, name := range report.Finalised {
				b, _ := os.ReadFile(filepath.Join(lane, name))
				m.Digests[name] = report.Digest(b)
			}
		}
		writeJSON(t, filepath.Join(lane, "run.json"), &m)
	}
}

// The gate judges the reports the CLI finalised, nothing written after: a report rewritten
// after the run (by a process the run left behind) no longer matches run.json's digest, and a
// run.json with no digests (by hand, or an old classproof) proves nothing about its reports.
func TestTheGateJudgesOnlyFinalisedReports(t *testing.T) {
	dir := t.TempDir()
	writeLane(t, dir, "linux-idle", ok("linux-idle"), true, spec{"p", passed, nil})
	expectPass(t, evaluate(t, dir, policy(false, "p")))
	forged := filepath.Join(dir, "linux-idle", "junit.xml")
	if err := os.WriteFile(forged, []byte(`<testsuites tests="1" failures="0"/>`), 0o644); err != nil {
		t.Fatal(err)
	}
	expectBlocked(t, evaluate(t, dir, policy(false, "p")), "junit.xml is not the file the run judged: run.json records sha256:")

	bare := t.TempDir()
	m := ok("linux-idle")
	m.Digests = map[string]string{}
	writeLane(t, bare, "linux-idle", m, true, spec{"p", passed, nil})
	expectBlocked(t, evaluate(t, bare, policy(false, "p")), "run.json records no digest of report.json")
}

// --require-sandbox blocks a lane whose launcher ran unsandboxed, and only that.
func TestRequireSandboxBlocksAnUnsandboxedLane(t *testing.T) {
	for _, sandboxed := range []bool{true, false} {
		dir := t.TempDir()
		m := ok("linux-idle")
		m.Sandboxed, m.Sandbox = sandboxed, "none: turned off by CLASSPROOF_SANDBOX=off"
		if sandboxed {
			m.Sandbox = "landlock ABI 7"
		}
		writeLane(t, dir, "linux-idle", m, true, spec{"p", passed, nil})
		expectPass(t, evaluate(t, dir, policy(false, "p")))
		v, err := EvaluateWith(dir, policy(false, "p"), nil, Options{RequireSandbox: true})
		if err != nil {
			t.Fatal(err)
		}
		if sandboxed {
			expectPass(t, v)
		} else {
			expectBlocked(t, v, `the launcher ran without a sandbox (run.json: "none: turned off by CLASSPROOF_SANDBOX=off"), and --require-sandbox asks for one`)
		}
	}
}

// A sandbox that does not refuse every write (Landlock before ABI 3: truncate) is no sandbox to
// --require-sandbox, and the message says which it was; one that only lacks signal scoping (ABI 4
// and 5, GitHub's hosted runners) passes.
func TestRequireSandboxBlocksAPartialSandboxThatLetsWritesThrough(t *testing.T) {
	for _, c := range []struct {
		sandbox   string
		sandboxed bool
	}{
		{"landlock ABI 2 (...); not enforced: truncating a file (truncate, ABI 3) not refused", false},
		{"landlock ABI 5 (...); not enforced: signals and abstract unix sockets not scoped", true},
	} {
		dir := t.TempDir()
		m := ok("linux-idle")
		m.Sandboxed, m.Sandbox = c.sandboxed, c.sandbox
		writeLane(t, dir, "linux-idle", m, true, spec{"p", passed, nil})
		v, err := EvaluateWith(dir, policy(false, "p"), nil, Options{RequireSandbox: true})
		if err != nil {
			t.Fatal(err)
		}
		if c.sandboxed {
			expectPass(t, v)
		} else {
			expectBlocked(t, v, "the launcher ran in a sandbox that does not refuse every write (run.json: \"landlock ABI 2")
		}
	}
}

// A lane whose launcher held root's power, or whose run.json does not say, is blocked by
// --require-sandbox, each named; without the flag both pass as before.
func TestRequireSandboxBlocksALauncherThatHeldRoot(t *testing.T) {
	for _, c := range []struct {
		identity string
		root     bool
		says     string
	}{
		{"uid 0 gid 0, capabilities 000001ffffffffff (root: ...)", true, `the launcher ran with root's power (run.json launcher_identity: "uid 0 gid 0`},
		{"", false, "run.json records no launcher identity"},
	} {
		dir := t.TempDir()
		m := ok("linux-idle")
		m.Sandboxed, m.Sandbox = true, "landlock ABI 7"
		m.LauncherIdentity, m.LauncherRoot = c.identity, c.root
		writeLane(t, dir, "linux-idle", m, true, spec{"p", passed, nil})
		expectPass(t, evaluate(t, dir, policy(false, "p")))
		v, err := EvaluateWith(dir, policy(false, "p"), nil, Options{RequireSandbox: true})
		if err != nil {
			t.Fatal(err)
		}
		expectBlocked(t, v, c.says)
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// ok is the run.json of a lane whose own run passed; its filter leaves out specs labelled
// "darwin", so a spec with that label and no run is left out, any other one was cut off.
func ok(lane string) *report.Meta {
	return &report.Meta{Lane: lane, Filter: "!darwin", GOOS: "linux", GOARCH: "amd64", Passed: true,
		LauncherIdentity: "uid 1001 gid 1001, capabilities 0000000000000000"}
}

func policy(allowSkips bool, specs ...string) *Required {
	return &Required{Lanes: map[string]*Policy{"linux-idle": {AllowRuntimeSkips: allowSkips, Specs: specs}}}
}

func evaluate(t *testing.T, dir string, req *Required, expect ...string) *Verdict {
	t.Helper()
	v, err := Evaluate(dir, req, expect)
	if err != nil {
		t.Fatal(err)
	}
	if v.Pass != (len(v.Reasons) == 0) {
		t.Fatalf("verdict pass=%v with reasons %q", v.Pass, v.Reasons)
	}
	return v
}

func expectPass(t *testing.T, v *Verdict) {
	t.Helper()
	if !v.Pass {
		t.Fatalf("blocked, want it to pass: %q", v.Reasons)
	}
}

func expectReasons(t *testing.T, v *Verdict, want ...string) {
	t.Helper()
	if v.Pass {
		t.Fatalf("passed, want it blocked for %q", want)
	}
	all := strings.Join(v.Reasons, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("no reason says %q; the reasons:\n%s", w, all)
		}
	}
}

func TestAPassingLaneWithItsRequiredSpecsPasses(t *testing.T) {
	dir := t.TempDir()
	writeLane(t, dir, "linux-idle", ok("linux-idle"), true,
		spec{"a direct session starts at background", passed, nil},
		spec{"a darwin spec", leftOut, []string{"darwin"}})
	v := evaluate(t, dir, policy(false, "a direct session starts at background"), "linux-idle")
	expectPass(t, v)
	l := v.Lanes[0]
	if l.Required != 1 || l.Present != 1 || l.Count.Passed != 1 || l.Count.Filtered != 1 {
		t.Errorf("lane counts: required %d present %d, %+v", l.Required, l.Present, l.Count)
	}
}

func TestEachSpecThatDidNotPassBlocks(t *testing.T) {
	dir := t.TempDir()
	writeLane(t, dir, "linux-idle", ok("linux-idle"), true,
		spec{"passes", passed, nil},
		spec{"fails", failed, nil},
		spec{"was cut off", notRun, nil},
		spec{"was skipped", skipped, nil})
	v := evaluate(t, dir, policy(false))
	expectReasons(t, v,
		"linux-idle (linux-idle): failed: fails: ps said TS, expected IDL",
		"did not run (the run stopped first): was cut off",
		"skipped at run time, which lane linux-idle does not allow: was skipped (reason: needs darwin)")
	if len(v.Reasons) != 3 {
		t.Errorf("%d reasons, want 3: %q", len(v.Reasons), v.Reasons)
	}
}

func TestARuntimeSkipPassesOnlyWhereTheLaneAllowsIt(t *testing.T) {
	dir := t.TempDir()
	writeLane(t, dir, "linux-idle", ok("linux-idle"), true, spec{"passes", passed, nil}, spec{"was skipped", skipped, nil})
	v := evaluate(t, dir, policy(true))
	expectPass(t, v)
	if len(v.Lanes[0].Skips) != 1 || v.Lanes[0].Skips[0].Name != "was skipped" {
		t.Errorf("the allowed skip is not recorded for the table: %+v", v.Lanes[0].Skips)
	}
}

func TestARequiredSpecMustRunAndPass(t *testing.T) {
	dir := t.TempDir()
	writeLane(t, dir, "linux-idle", ok("linux-idle"), true,
		spec{"passes", passed, nil},
		spec{"left out here", leftOut, []string{"darwin"}})
	v := evaluate(t, dir, policy(false, "passes", "left out here", "renamed"))
	expectReasons(t, v,
		"required spec did not run and pass (skipped): left out here",
		"required spec did not run and pass (absent from the report (renamed or deleted?)): renamed")
	if l := v.Lanes[0]; l.Required != 3 || l.Present != 1 {
		t.Errorf("required %d present %d, want 3 and 1", l.Required, l.Present)
	}
}

func TestAWholeRunThatProvesNothingBlocks(t *testing.T) {
	cases := map[string]struct {
		meta    func(*report.Meta) *report.Meta
		suiteOK bool
		specs   []spec
		want    string
	}{
		"no run.json":     {func(*report.Meta) *report.Meta { return nil }, true, []spec{{"p", passed, nil}}, "no run.json beside report.json"},
		"its run failed":  {func(m *report.Meta) *report.Meta { m.Passed = false; return m }, true, []spec{{"p", passed, nil}}, "the lane's own run failed"},
		"a dry run":       {func(m *report.Meta) *report.Meta { m.DryRun = true; return m }, true, []spec{{"p", passed, nil}}, "a dry run proves nothing"},
		"forced":          {func(m *report.Meta) *report.Meta { m.Forced = true; return m }, true, []spec{{"p", passed, nil}}, "the lane was forced onto linux/amd64"},
		"a leak":          {func(m *report.Meta) *report.Meta { m.Leaks = []string{"pid 7 (sleep)"}; return m }, true, []spec{{"p", passed, nil}}, "leaked pid 7 (sleep)"},
		"a refused line":  {func(m *report.Meta) *report.Meta { m.Refused = []string{"pid 1"}; return m }, true, []spec{{"p", passed, nil}}, "the pid ledger held a line the sweep refused: pid 1"},
		"a failed suite":  {func(m *report.Meta) *report.Meta { return m }, false, []spec{{"p", passed, nil}}, "suite cpuclass did not succeed"},
		"nothing ran":     {func(m *report.Meta) *report.Meta { return m }, true, []spec{{"d", leftOut, []string{"darwin"}}}, "ran no spec"},
		"only skips ran":  {func(m *report.Meta) *report.Meta { return m }, true, []spec{{"s", skipped, nil}}, "ran no spec"},
		"an empty report": {func(m *report.Meta) *report.Meta { return m }, true, nil, "ran no spec"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeLane(t, dir, "linux-idle", c.meta(ok("linux-idle")), c.suiteOK, c.specs...)
			expectReasons(t, evaluate(t, dir, policy(true)), c.want)
		})
	}
}

func TestAFailedSetupNodeBlocks(t *testing.T) {
	dir := t.TempDir()
	writeLane(t, dir, "linux-idle", ok("linux-idle"), true, spec{"p", passed, nil})
	path := filepath.Join(dir, "linux-idle", "report.json")
	var reps []types.Report
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &reps); err != nil {
		t.Fatal(err)
	}
	reps[0].SpecReports = append(reps[0].SpecReports, types.SpecReport{LeafNodeType: types.NodeTypeBeforeSuite,
		State: types.SpecStateFailed, Failure: types.Failure{Message: "refmux did not build\nmore"}})
	writeJSON(t, path, reps)
	expectReasons(t, evaluate(t, dir, policy(false)), "BeforeSuite failed in cpuclass: refmux did not build")
}

func TestEveryExpectedLaneMustBeThere(t *testing.T) {
	dir := t.TempDir()
	writeLane(t, dir, "out-1", ok("linux-idle"), true, spec{"p", passed, nil})
	req := &Required{Lanes: map[string]*Policy{"linux-idle": {}, "darwin": {}}}
	v := evaluate(t, dir, req)
	expectReasons(t, v, "darwin (): no report: the lane did not run or did not upload its reports")
	if len(v.Reasons) != 1 {
		t.Errorf("the lane run.json names (linux-idle, in folder out-1) was not matched: %q", v.Reasons)
	}
	expectReasons(t, evaluate(t, t.TempDir(), nil), "no lane reports at all under")
	expectPass(t, evaluate(t, dir, nil)) // no required-spec file: each lane on its own report
}

func TestACommittedConventionMustRunAndPass(t *testing.T) {
	conv := func(c string) []string { return []string{"conv-" + c} }
	req := func() *Required {
		return &Required{Lanes: map[string]*Policy{"linux-idle": {Conventions: []string{"fold-case"}}}}
	}
	dir := t.TempDir()
	writeLane(t, dir, "linux-idle", ok("linux-idle"), true, spec{"p", passed, nil}, spec{"folds case", passed, conv("fold-case")})
	expectPass(t, evaluate(t, dir, req()))

	dir = t.TempDir()
	writeLane(t, dir, "linux-idle", ok("linux-idle"), true, spec{"p", passed, nil},
		spec{"folds case", leftOut, append(conv("fold-case"), "darwin")})
	expectReasons(t, evaluate(t, dir, req()),
		"convention fold-case is required, but the lane left out: folds case",
		"convention fold-case is required, but no spec labelled conv-fold-case ran and passed")

	dir = t.TempDir()
	writeLane(t, dir, "linux-idle", ok("linux-idle"), true, spec{"p", passed, nil})
	expectReasons(t, evaluate(t, dir, req()), "no spec labelled conv-fold-case ran and passed")
}

func TestJUnitSaysWhichLanesFailedAndWhy(t *testing.T) {
	v := &Verdict{Lanes: []*Lane{{Name: "linux-idle", Dir: "x"}, {Name: "darwin", Problems: []string{"no report", "ran no spec"}}}}
	path := filepath.Join(t.TempDir(), "gate.xml")
	if err := v.WriteJUnit(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got junitSuites
	if err := xml.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Tests != 2 || got.Failures != 1 || len(got.Suites) != 1 || got.Suites[0].Failures != 1 {
		t.Fatalf("tests %d failures %d: %s", got.Tests, got.Failures, b)
	}
	c := got.Suites[0].Cases
	if c[0].Failure != nil || c[1].Failure == nil || c[1].Failure.Message != "no report" || c[1].Failure.Text != "no report\nran no spec" {
		t.Fatalf("cases: %s", b)
	}
}

// A lane whose own run failed is blocked with the lines that decided it, quoted from run.json,
// and a run.json that records none says its specs failed: never a pointer to lines a log lacks.
func TestAFailedOwnRunQuotesWhatDecided(t *testing.T) {
	dir := t.TempDir()
	meta := ok("linux-idle")
	meta.Passed = false
	meta.Problems = []string{"the kit's own class changed during the run: autogroup nice 19"}
	meta.Leaks = []string{"harness pid 42"}
	writeLane(t, dir, "linux-idle", meta, true, spec{"a direct session starts at background", passed, nil})
	expectReasons(t, evaluate(t, dir, nil, "linux-idle"),
		"FAILED LANE: the kit's own class changed during the run: autogroup nice 19", "LEAK: harness pid 42")

	dir = t.TempDir()
	meta = ok("linux-idle")
	meta.Passed = false
	writeLane(t, dir, "linux-idle", meta, false, spec{"a direct session starts at background", failed, nil})
	v := evaluate(t, dir, nil, "linux-idle")
	expectReasons(t, v, "its specs or suites failed")
	if all := strings.Join(v.Reasons, "\n"); strings.Contains(all, "FAILED LANE") || strings.Contains(all, "LEAK") {
		t.Errorf("a reason names lines the run did not print:\n%s", all)
	}
}

// The gate's default list is the kit's own: from a launcher's repository, the error says what to
// pass instead.
func TestAMissingRequiredListSaysWhatToPass(t *testing.T) {
	_, err := LoadRequired(filepath.Join(t.TempDir(), "ci", "required-specs.yaml"))
	if err == nil || !strings.Contains(err.Error(), "no such file") || !strings.Contains(err.Error(), "--required ''") {
		t.Errorf("a missing list: %v", err)
	}
}

// Two runners of one lane (the workflow's darwin on arm64 and Intel): one that wrote nothing
// blocks the gate, named, though the lane's name has a report from the other; one that stopped
// before its report, with only run.json, blocks with what run.json says; both reports pass.
func TestEveryExpectedRunnerMustReport(t *testing.T) {
	matrix := `[{"lane":"linux-idle","runner":"ubuntu-24.04"},{"lane":"linux-idle","runner":"ubuntu-22.04"}]`
	expect, err := ParseMatrix(matrix)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeLane(t, filepath.Join(dir, "ubuntu-24.04"), "linux-idle", ok("linux-idle"), true, spec{"a direct session starts at background", passed, nil})
	expectReasons(t, evaluate(t, dir, nil, expect...), "linux-idle (ubuntu-22.04/linux-idle): no report from runner ubuntu-22.04")

	stopped := ok("linux-idle")
	stopped.Passed, stopped.Problems = false, []string{"ci/lane: the run stopped before it wrote its report: go build exited 1"}
	os.MkdirAll(filepath.Join(dir, "ubuntu-22.04", "linux-idle"), 0o755)
	writeJSON(t, filepath.Join(dir, "ubuntu-22.04", "linux-idle", "run.json"), stopped)
	expectReasons(t, evaluate(t, dir, nil, expect...), "ubuntu-22.04/linux-idle", "go build exited 1", "report.json")

	writeLane(t, filepath.Join(dir, "ubuntu-22.04"), "linux-idle", ok("linux-idle"), true, spec{"a direct session starts at background", passed, nil})
	expectPass(t, evaluate(t, dir, nil, expect...))

	for _, bad := range []string{`{}`, `[]`, `[{"lane":"darwin"}]`, `[{"lane":"darwin","runner":"a/b"}]`} {
		if _, err := ParseMatrix(bad); err == nil {
			t.Errorf("matrix %s accepted", bad)
		}
	}
}

// expectBlocked fails unless the gate blocked, for a reason that says want.
func expectBlocked(t *testing.T, v *Verdict, want string) {
	t.Helper()
	if v.Pass {
		t.Fatalf("the gate passed; wanted it blocked for %q\n%s", want, v.Table())
	}
	if !strings.Contains(strings.Join(v.Reasons, "\n"), want) {
		t.Errorf("blocked, but not for %q:\n%s", want, strings.Join(v.Reasons, "\n"))
	}
}

// The closing lines say the verdict, every reason it blocked, and the counts over every lane.
func TestTheClosingLinesSayTheVerdictAndTheCounts(t *testing.T) {
	lanes := []*Lane{{Name: "linux-idle", Count: report.Count{Passed: 3, Failed: 1}}, {Name: "linux-ignore", Count: report.Count{Passed: 2, Skipped: 1}}}
	blocked := (&Verdict{Lanes: lanes, Reasons: []string{"linux-idle: 1 failed", "darwin: no report"}}).Closing()
	want := "\nclassproof gate: BLOCKED (2 reasons):\n  - linux-idle: 1 failed\n  - darwin: no report\ngate: 5 passed, 1 failed, 1 skipped\n"
	if blocked != want {
		t.Errorf("blocked:\n%q\nwant\n%q", blocked, want)
	}
	if pass := (&Verdict{Pass: true, Lanes: lanes}).Closing(); pass != "\nclassproof gate: PASS (2 lane reports)\ngate: 5 passed, 1 failed, 1 skipped\n" {
		t.Errorf("pass: %q", pass)
	}
}

// A lane is a folder holding report.json or run.json: a stray file beside the lanes (the gate's
// own JUnit summary, a note) makes no lane of its folder.
func TestOnlyAReportOrRunJSONMakesALane(t *testing.T) {
	dir := t.TempDir()
	writeLane(t, dir, "linux-idle", ok("linux-idle"), true, spec{"p", passed, nil})
	if err := os.WriteFile(filepath.Join(dir, "gate-junit.xml"), []byte("<testsuites/>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes", "junit.xml"), []byte("<testsuites/>"), 0o644); err != nil {
		t.Fatal(err)
	}
	v := evaluate(t, dir, policy(false, "p"))
	expectPass(t, v)
	if len(v.Lanes) != 1 {
		t.Errorf("%d lanes, want 1 (linux-idle): %+v", len(v.Lanes), v.Lanes)
	}
	// A folder with a report.json and no run.json is a lane, and blocks.
	only := t.TempDir()
	writeLane(t, only, "linux-idle", nil, true, spec{"p", passed, nil})
	expectBlocked(t, evaluate(t, only, policy(false, "p")), "run.json")
}

// The digests are checked whenever either side of them is there: a report with a run.json that
// records none (an old classproof, or by hand), and a run.json whose recorded report is gone.
func TestDigestsAreCheckedWhenEitherSideIsThere(t *testing.T) {
	dir := t.TempDir()
	writeLane(t, dir, "linux-idle", nil, true, spec{"p", passed, nil})
	writeJSON(t, filepath.Join(dir, "linux-idle", "run.json"), ok("linux-idle")) // no digests at all
	expectBlocked(t, evaluate(t, dir, policy(false, "p")), "run.json records no digest of report.json")

	gone := t.TempDir()
	writeLane(t, gone, "linux-idle", ok("linux-idle"), true, spec{"p", passed, nil})
	if err := os.Remove(filepath.Join(gone, "linux-idle", "report.json")); err != nil {
		t.Fatal(err)
	}
	expectBlocked(t, evaluate(t, gone, policy(false, "p")), "report.json, whose digest run.json records")
}
