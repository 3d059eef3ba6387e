//go:build e2e

package gate

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/classproof/classproof/fixtures/targets"
	"github.com/classproof/classproof/helpers/runner"
)

// The gate is tested on real reports: the cpuclass suite run against refmux, a broken refmux, a
// lane forced onto the wrong OS and a filter that selects nothing.

func runLane(t *testing.T, name string, o runner.Options, vars ...string) (string, *runner.Result) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the cpuclass suite")
	}
	var err error
	if o.Target, err = targets.Resolve("", o.Lane, vars, ""); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), name)
	o.OutDir, o.Log = filepath.Join(dir, o.Lane), io.Discard
	o.Suites = []string{"./suites/cpuclass"}
	res, err := runner.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return dir, res
}

// required lists every spec a clean run of the lane ran.
func required(t *testing.T, res *runner.Result, ln string) *Required {
	p := &Policy{}
	for _, s := range res.Run.Specs {
		if !s.Filtered {
			p.Specs = append(p.Specs, s.Name)
		}
	}
	if len(p.Specs) == 0 {
		t.Fatal("the clean run ran nothing")
	}
	return &Required{Lanes: map[string]*Policy{ln: p}}
}

func TestGateOnRealReports(t *testing.T) {
	cleanDir, clean := runLane(t, "clean", runner.Options{Lane: "linux-idle"})
	req := required(t, clean, "linux-idle")

	t.Run("accepts a clean Linux run", func(t *testing.T) {
		v, err := Evaluate(cleanDir, req, []string{"linux-idle"})
		if err != nil || !v.Pass {
			t.Fatalf("err %v, reasons %v", err, v.Reasons)
		}
	})

	t.Run("rejects a lane that did not run a convention the launcher committed to", func(t *testing.T) {
		committed := &Required{Lanes: map[string]*Policy{"linux-idle": {Conventions: []string{"fold-case"}}}}
		v, _ := Evaluate(cleanDir, committed, []string{"linux-idle"})
		expectBlocked(t, v, "convention fold-case is required, but no spec labelled conv-fold-case ran and passed")
	})

	// copyLane copies the clean lane's folder, so a subtest can damage it.
	copyLane := func(t *testing.T) (string, string) {
		dir := t.TempDir()
		lane := filepath.Join(dir, "linux-idle")
		os.MkdirAll(lane, 0o755)
		for _, f := range []string{"report.json", "run.json", "junit.xml"} {
			b, _ := os.ReadFile(filepath.Join(cleanDir, "linux-idle", f))
			os.WriteFile(filepath.Join(lane, f), b, 0o644)
		}
		return dir, lane
	}

	t.Run("rejects a lane whose own run failed (run.json passed: false)", func(t *testing.T) {
		dir, lane := copyLane(t)
		b, _ := os.ReadFile(filepath.Join(lane, "run.json"))
		os.WriteFile(filepath.Join(lane, "run.json"), bytes.Replace(b, []byte(`"passed": true`), []byte(`"passed": false`), 1), 0o644)
		v, _ := Evaluate(dir, req, []string{"linux-idle"})
		expectBlocked(t, v, "the lane's own run failed (run.json says passed: false)")
	})

	t.Run("rejects a lane with no run.json", func(t *testing.T) {
		dir, lane := copyLane(t)
		os.Remove(filepath.Join(lane, "run.json"))
		v, _ := Evaluate(dir, req, []string{"linux-idle"})
		expectBlocked(t, v, "no run.json beside report.json")
	})

	t.Run("rejects a dry run that report.json records, whatever run.json says", func(t *testing.T) {
		dry, _ := runLane(t, "dry", runner.Options{Lane: "linux-idle", DryRun: true})
		b, _ := os.ReadFile(filepath.Join(dry, "linux-idle", "run.json"))
		b = bytes.Replace(b, []byte(`"dry_run": true,`), nil, 1)
		os.WriteFile(filepath.Join(dry, "linux-idle", "run.json"), bytes.Replace(b, []byte(`"passed": false`), []byte(`"passed": true`), 1), 0o644)
		v, _ := Evaluate(dry, nil, []string{"linux-idle"})
		expectBlocked(t, v, "a dry run proves nothing")
	})

	t.Run("rejects a required spec that vanished", func(t *testing.T) {
		renamed := &Required{Lanes: map[string]*Policy{"linux-idle": {Specs: append(append([]string{}, req.Lanes["linux-idle"].Specs...),
			"cpuclass on Linux, idle mode (SCHED_IDLE + I/O idle) a direct session starts the direct harness at background class (old name)")}}}
		v, _ := Evaluate(cleanDir, renamed, []string{"linux-idle"})
		expectBlocked(t, v, "required spec did not run and pass (absent from the report (renamed or deleted?))")
	})

	t.Run("rejects a lane whose report is missing", func(t *testing.T) {
		v, _ := Evaluate(cleanDir, req, []string{"linux-idle", "linux-ignore"})
		expectBlocked(t, v, "linux-ignore (")
	})

	t.Run("rejects a required spec the lane filtered out", func(t *testing.T) {
		dir, _ := runLane(t, "filtered", runner.Options{Lane: "linux-idle", LabelFilter: "!concurrency"})
		v, _ := Evaluate(dir, req, []string{"linux-idle"})
		expectBlocked(t, v, "required spec did not run and pass (skipped): cpuclass on Linux, idle mode (SCHED_IDLE + I/O idle) many sessions at once")
	})

	t.Run("rejects a report with a failed spec", func(t *testing.T) {
		dir, _ := runLane(t, "red", runner.Options{Lane: "linux-idle"}, "variant=noclass")
		v, _ := Evaluate(dir, req, []string{"linux-idle"})
		expectBlocked(t, v, "failed: cpuclass on Linux, idle mode (SCHED_IDLE + I/O idle) a direct session starts the direct harness and its tool sleep at background class")
	})

	t.Run("rejects a darwin lane whose darwin specs were skipped", func(t *testing.T) {
		dir, res := runLane(t, "darwin-on-linux", runner.Options{Lane: "darwin", ForeignLane: true})
		if res.Passed() {
			t.Error("classproof run passed a darwin lane that ran no darwin spec")
		}
		darwin := &Required{Lanes: map[string]*Policy{"darwin": {}}}
		v, _ := Evaluate(dir, darwin, []string{"darwin"})
		expectBlocked(t, v, "skipped at run time, which lane darwin does not allow: cpuclass on macOS (PRIO_DARWIN_BG) a direct session")
		expectBlocked(t, v, "needs darwin")
	})

	t.Run("rejects an empty lane", func(t *testing.T) {
		dir, _ := runLane(t, "empty", runner.Options{Lane: "linux-idle", LabelFilter: "no-such-label"})
		v, _ := Evaluate(dir, nil, []string{"linux-idle"})
		expectBlocked(t, v, "ran no spec")
	})
}
