//go:build e2e

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/classproof/classproof/helpers/binaries"
	"github.com/classproof/classproof/helpers/commands/mutants"
)

// A small real matrix (three variants on refmux's two Linux lanes, each run focused on the
// specs that tell them apart), run three ways: whole, as shares 1/3, 2/3 and 3/3 merged, and
// until caught, without and with first specs. The merged matrix is the whole run's, cell for
// cell; merge refuses a missing share; until-caught catches each variant where the whole run
// does, by one of its specs, and with first specs by one of them.
func TestShardsMergedAreTheWholeMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and runs the suites")
	}
	kit, err := binaries.KitDir()
	must(t, err)
	bin := buildCLI(t)
	values := filepath.Join(t.TempDir(), "variants.tsv")
	// noclass is caught only in idle mode, ignore-applies only in ignore mode, config-first in
	// both; each by a spec whose outcome does not depend on a race (no-lock's concurrent --set
	// spec is one, and once let a share's lane pass where the whole run's was caught).
	must(t, os.WriteFile(values, []byte("noclass\tno class step\nignore-applies\tignore mode applies the class\nconfig-first\tthe config key is read first\n"), 0o644))
	focus := "a direct session starts the direct harness|resolves to background from the config, direct session|profile env background, daemon env background, config normal: background from the profile"
	dir := t.TempDir()
	mutantsRun := func(out string, more ...string) (int, string) {
		args := append([]string{"mutants", "--values-file", values, "--target", "embedded:refmux.yaml", "--target", "embedded:refmux-seed.yaml",
			"--focus", focus, "--out", filepath.Join(dir, out)}, more...)
		return cli(t, kit, bin, args...)
	}

	code, log := mutantsRun("whole")
	if code != exitPassed {
		t.Fatalf("the whole matrix exited %d, not 0:\n%s", code, log)
	}
	whole := readMatrix(t, filepath.Join(dir, "whole"))
	if caughtCells(whole) == 0 || caughtCells(whole) == 6 {
		t.Fatalf("the whole matrix caught %d of 6 cells: a test of merging needs caught and uncaught cells\n%s", caughtCells(whole), log)
	}

	var parts []string
	for k := 1; k <= 3; k++ {
		out := fmt.Sprintf("share%d", k)
		if code, log := mutantsRun(out, "--shard", fmt.Sprintf("%d/3", k)); code != exitPassed {
			t.Fatalf("share %d/3 exited %d:\n%s", k, code, log)
		}
		parts = append(parts, filepath.Join(dir, out, fmt.Sprintf("part-%d-of-3.json", k)))
	}
	code, log = cli(t, kit, bin, append([]string{"mutants", "merge", "--out", filepath.Join(dir, "merged")}, parts...)...)
	if code != exitPassed {
		t.Fatalf("merge exited %d:\n%s", code, log)
	}
	merged := readMatrix(t, filepath.Join(dir, "merged"))
	if err := mutants.SameCells(whole, merged); err != nil {
		t.Fatalf("shares 1/3, 2/3 and 3/3 merged differ from the whole run: %v", err)
	}
	if merged.Shards != 3 {
		t.Errorf("the merged matrix says it has %d shares, not 3", merged.Shards)
	}

	code, log = cli(t, kit, bin, "mutants", "merge", "--out", filepath.Join(dir, "two"), parts[0], parts[2])
	if code != exitUsage || !strings.Contains(log, "share 2/3 missing") {
		t.Errorf("merge of shares 1/3 and 3/3 exited %d, not 2 naming share 2/3 as missing:\n%s", code, log)
	}
	if _, err := os.Stat(filepath.Join(dir, "two", "matrix.json")); err == nil {
		t.Errorf("a refused merge wrote a matrix")
	}

	if code, log := mutantsRun("until", "--until-caught"); code != exitPassed {
		t.Fatalf("--until-caught exited %d:\n%s", code, log)
	}
	until := readMatrix(t, filepath.Join(dir, "until"))
	if err := mutants.CaughtAlike(whole, until); err != nil {
		t.Fatalf("--until-caught and the whole run disagree: %v", err)
	}
	for _, r := range until.Rows {
		for _, c := range r.Cells {
			if len(c.CaughtBy) > 1 {
				t.Errorf("%s on %s: --until-caught went on past its first catch: %v", r.Value.Name, c.Lane, c.CaughtBy)
			}
		}
	}
	if got := cellsWhere(until, func(c mutants.Cell) bool { return c.NotRun != "" }); got != 2 {
		t.Errorf("--until-caught left out %d cells, want 2: noclass and config-first, caught on the first lane, need no second\n%s", got, mutants.Markdown(until))
	}
	// Without first specs each lane runs until caught, so the reference ran each lane whole.
	for _, b := range until.Baseline {
		if b.NotRun != "" || !b.Passed {
			t.Errorf("--until-caught ran variants' lanes but not the reference's on %s: %+v", b.Lane, b)
		}
	}

	// With the whole run's first specs, each lane runs them before the rest: every variant is
	// caught by one of them, where the whole run catches it.
	firstFile := filepath.Join(dir, "first.tsv")
	must(t, os.WriteFile(firstFile, mutants.FormatFirst(mutants.Cover(whole)), 0o644))
	if code, log := mutantsRun("until-first", "--until-caught", "--first", firstFile); code != exitPassed {
		t.Fatalf("--until-caught --first exited %d:\n%s", code, log)
	}
	first := readMatrix(t, filepath.Join(dir, "until-first"))
	if err := mutants.CaughtAlike(whole, first); err != nil {
		t.Fatalf("--until-caught --first and the whole run disagree: %v", err)
	}
	if got, want := cellsWhere(first, func(c mutants.Cell) bool { return c.First }), caughtCells(until); got != want {
		t.Errorf("%d cells were caught by a first spec, want %d (every caught cell):\n%s", got, want, mutants.Markdown(first))
	}
	// Every variant caught by its first spec: no lane ran whole, the reference's neither.
	for _, b := range first.Baseline {
		if b.NotRun == "" || b.Timing.Specs > 0 {
			t.Errorf("the reference ran %s whole though a first spec caught every variant: %+v", b.Lane, b)
		}
	}
	// A first spec the reference does not pass (here: one renamed, so none ran; the focus still
	// selects its name) is not used: the lane runs without its list, and still catches what the
	// whole run catches.
	var stale []mutants.FirstSpec
	for _, f := range mutants.Cover(whole) {
		f.Spec += " (renamed)"
		stale = append(stale, f)
	}
	staleFile := filepath.Join(dir, "stale.tsv")
	must(t, os.WriteFile(staleFile, mutants.FormatFirst(stale), 0o644))
	code, log = mutantsRun("until-stale", "--until-caught", "--first", staleFile)
	if code != exitPassed || !strings.Contains(log, "ran and passed on the reference") || !strings.Contains(log, "the lane runs without them") {
		t.Fatalf("--until-caught with first specs that do not run exited %d, not 0 saying the lanes run without them:\n%s", code, log)
	}
	stalem := readMatrix(t, filepath.Join(dir, "until-stale"))
	if err := mutants.CaughtAlike(whole, stalem); err != nil || cellsWhere(stalem, func(c mutants.Cell) bool { return c.First }) > 0 {
		t.Fatalf("--until-caught with unusable first specs: %v, or a cell says a first spec caught it:\n%s", err, mutants.Markdown(stalem))
	}
	if code, log := mutantsRun("first-alone", "--first", firstFile); code != exitUsage || !strings.Contains(log, "needs --until-caught") {
		t.Errorf("--first without --until-caught exited %d, not 2 saying it needs --until-caught:\n%s", code, log)
	}
}

func cellsWhere(m *mutants.Matrix, f func(mutants.Cell) bool) int {
	n := 0
	for _, r := range m.Rows {
		for _, c := range r.Cells {
			if f(c) {
				n++
			}
		}
	}
	return n
}

func cli(t *testing.T, kit, bin string, args ...string) (int, string) {
	t.Helper()
	return cliIn(t, kit, nil, bin, args...)
}

// cliIn is cli started in dir, with env added to the test's own.
func cliIn(t *testing.T, dir string, env []string, bin string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		}
		t.Fatalf("%s: %v", strings.Join(args, " "), err)
	}
	return 0, string(out)
}

func readMatrix(t *testing.T, dir string) *mutants.Matrix {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "matrix.json"))
	must(t, err)
	var m mutants.Matrix
	must(t, json.Unmarshal(b, &m))
	return &m
}

func caughtCells(m *mutants.Matrix) int {
	n := 0
	for _, r := range m.Rows {
		for _, c := range r.Cells {
			if len(c.CaughtBy) > 0 {
				n++
			}
		}
	}
	return n
}
