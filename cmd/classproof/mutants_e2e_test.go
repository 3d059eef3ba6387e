//go:build e2e

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/classproof/classproof/fixtures/targets"
	"github.com/classproof/classproof/helpers/binaries"
	"github.com/classproof/classproof/helpers/commands/mutants"
)

// A newcomer's two stumbles with mutants: a manifest in the {repo} style needs --repo (mutants
// had none), and a manifest that declares no var "variant" stopped the matrix with "interrupted
// ... context canceled" instead of its cause. Run from a folder that is no repository, so that
// only --repo can name the launcher's tree.
func TestMutantsTakesRepoAndNamesAMissingVar(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and runs a suite")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the linux-idle lane")
	}
	kit, err := binaries.KitDir()
	must(t, err)
	bin := buildCLI(t)
	ref, err := targets.FS.ReadFile("refmux.yaml")
	must(t, err)
	dir := t.TempDir()
	run := func(args ...string) (int, string) {
		t.Helper()
		// The launcher as the kit's user: --repo is the kit's own checkout, which may sit in a
		// 0700 folder (as CI's clean clone does) that a launcher user of its own cannot reach;
		// only {kit} is staged for it.
		return cliIn(t, dir, []string{"CLASSPROOF_LAUNCHER_UID=0"}, bin, args...)
	}
	values := filepath.Join(dir, "variants.tsv")
	must(t, os.WriteFile(values, []byte("noclass\tno class step\n"), 0o644))

	inRepo := filepath.Join(dir, "in-repo.yaml")
	if !strings.Contains(string(ref), `dir: "{kit}"`) {
		t.Fatal(`refmux.yaml has no build dir "{kit}"; this test no longer tests --repo`)
	}
	must(t, os.WriteFile(inRepo, []byte(strings.Replace(string(ref), `dir: "{kit}"`, `dir: "{repo}"`, 1)), 0o644))
	code, log := run("mutants", "--values-file", values, "--target", inRepo, "--repo", kit,
		"--focus", "a direct session starts the direct harness", "--out", filepath.Join(dir, "out"))
	if code != exitPassed || !strings.Contains(log, "classproof mutants: all 1 variants caught") {
		t.Errorf("mutants --repo on a {repo} manifest exited %d:\n%s", code, log)
	}

	renamed := strings.ReplaceAll(strings.Replace(string(ref), `variant: ""`, `flavour: ""`, 1), "{variant}", "{flavour}")
	noVar := filepath.Join(dir, "no-variant.yaml")
	must(t, os.WriteFile(noVar, []byte(renamed), 0o644))
	code, log = run("mutants", "--values-file", values, "--target", noVar, "--out", filepath.Join(dir, "out2"))
	if code != exitUsage || !strings.Contains(log, `declares no var "variant"`) || strings.Contains(log, "interrupted") {
		t.Errorf("mutants on a manifest without the var exited %d, not 2 naming the var:\n%s", code, log)
	}
}

// A fault row runs only the specs where the reference's probe saw its call, and reads as it would
// have whole: refmux makes sched_setattr in a direct session and in the cpuclass suite's whole-run
// sessions (caught there, those specs run, not the config's) and never setpriority (never fired,
// no run of its own); --no-probe, every row's focus run whole, gives the same verdict cell by cell.
func TestTheProbeNarrowsAFaultRowAndKeepsItsVerdict(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and runs a suite")
	}
	if runtime.GOOS != "linux" {
		t.Skip("faults are injected on Linux")
	}
	bin := buildCLI(t)
	dir := t.TempDir()
	focus := "a direct session starts the direct harness|config round-trips|the whole run of the cpuclass suite"
	matrix := func(out string, more ...string) *mutants.Matrix {
		t.Helper()
		return passingMatrix(t, bin, dir, out, append([]string{"--inject", "sched_setattr,setpriority", "--focus", focus}, more...)...)
	}
	probed, whole := matrix("probed"), matrix("whole", "--no-probe")
	if err := mutants.SameCells(whole, probed); err != nil {
		t.Errorf("the probed matrix's verdicts differ from the whole one's: %v", err)
	}
	for _, r := range probed.Rows {
		c := r.Cells[0]
		switch r.Value.Name {
		case mutants.InjectPrefix + "sched_setattr":
			ref := probed.Baseline[0]
			if len(c.CaughtBy) == 0 || c.Probed < 2 || c.Probed != len(ref.Calls["sched_setattr"]) || !slices.Contains(ref.Lasting, "sched_setattr") {
				t.Errorf("sched_setattr: caught by %v, %d specs run (the probe saw it in %v, lasting %v); want caught, on only the specs where the call came, the whole-run spec's among them",
					c.CaughtBy, c.Probed, ref.Calls["sched_setattr"], ref.Lasting)
			}
		case mutants.InjectPrefix + "setpriority":
			if !c.NotFired || c.Probed != -1 || c.Timing.Specs != 0 || c.Timing.Total > 1 {
				t.Errorf("setpriority: %+v; want never fired without a run", c)
			}
		}
	}

	// Until caught with the whole table's first list: sched_setattr on its first spec; setpriority
	// has none, so its row needs the lane: the reference runs it whole, once, under the probe,
	// which saw no setpriority call, and the row is never fired without a run of its own.
	firstFile := filepath.Join(dir, "first.tsv")
	must(t, os.WriteFile(firstFile, mutants.FormatFirst(mutants.Cover(whole)), 0o644))
	until := matrix("until", "--until-caught", "--first", firstFile)
	if err := mutants.CaughtAlike(whole, until); err != nil {
		t.Errorf("--until-caught --first and the whole table disagree: %v", err)
	}
	if b := until.Baseline[0]; b.NotRun != "" || !b.Passed || b.Calls == nil {
		t.Errorf("the reference under --until-caught: %+v; want its lane run whole under the probe, for the row without a first spec", b)
	}
	for _, r := range until.Rows {
		c := r.Cells[0]
		switch r.Value.Name {
		case mutants.InjectPrefix + "sched_setattr":
			if !c.First {
				t.Errorf("sched_setattr until caught: %+v; want caught by its first spec", c)
			}
		case mutants.InjectPrefix + "setpriority":
			if !c.NotFired || c.Probed != -1 || c.Timing.Specs != 0 || r.LeftOut == "" {
				t.Errorf("setpriority until caught: %+v (%s); want never fired without a run", c, r.LeftOut)
			}
		}
	}
}

// passingMatrix runs classproof mutants in dir, its matrix written to dir/out, and reads the
// matrix; a run that does not exit 0 (every variant caught) fails the test with its log.
func passingMatrix(t *testing.T, bin, dir, out string, args ...string) *mutants.Matrix {
	t.Helper()
	code, log := cliIn(t, dir, []string{"CLASSPROOF_LAUNCHER_UID=0"}, bin, append(append([]string{"mutants"}, args...), "--out", filepath.Join(dir, out))...)
	if code != exitPassed {
		t.Fatalf("mutants %v exited %d:\n%s", args, code, log)
	}
	return readMatrix(t, filepath.Join(dir, out))
}

// A hand-written variant that lists its sites runs only the specs where the reference's
// processes reached one, and reads as it would have whole: snake-key's hook (keySegment) is
// called by config --set, not by a direct session; noclass's (launch) by a session, not by the
// config's commands. --no-probe, every row run whole and no sites recorded, gives the same
// verdict cell by cell.
func TestSitesNarrowAHandWrittenRowAndKeepItsVerdict(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and runs a suite")
	}
	bin := buildCLI(t)
	dir := t.TempDir()
	values := filepath.Join(dir, "variants.tsv")
	must(t, os.WriteFile(values, []byte("snake-key\tconfig --set writes snake_case\tsites=keySegment\nnoclass\tno class step\tsites=launch\n"), 0o644))
	focus := "a direct session starts the direct harness|round-trips the class through --set and --get"
	narrowed := passingMatrix(t, bin, dir, "sites", "--values-file", values, "--focus", focus)
	whole := passingMatrix(t, bin, dir, "whole", "--values-file", values, "--focus", focus, "--no-probe")
	if err := mutants.SameCells(whole, narrowed); err != nil {
		t.Errorf("the matrix narrowed by sites differs from the whole one: %v", err)
	}
	ref := narrowed.Baseline[0]
	ran := 0
	for _, specs := range ref.Sites {
		ran = max(ran, len(specs))
	}
	for _, r := range narrowed.Rows {
		c, site := r.Cells[0], r.Value.Sites[0]
		if len(c.CaughtBy) == 0 || c.Probed == 0 || c.Probed != len(ref.Sites[site]) || c.Probed >= ran {
			t.Errorf("%s: caught by %v, %d specs run (its site %s reached in %v of the reference's); want caught, on only those specs",
				r.Value.Name, c.CaughtBy, c.Probed, site, ref.Sites[site])
		}
	}
	if b := whole.Baseline[0]; b.Sites != nil {
		t.Errorf("--no-probe recorded sites: %v", b.Sites)
	}

	// make mutants' values files list sites for every variant but no-size-limit (a number, no
	// hook): a list that lost them would run every row whole again, slowly and quietly.
	kit, err := binaries.KitDir()
	must(t, err)
	for _, argv := range [][]string{{"go", "run", "./fixtures/refmux", "variants"}, {"fixtures/shmux/shmux", "variants"}} {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = kit
		out, err := cmd.Output()
		must(t, err)
		vs, err := mutants.ParseValues(strings.Join(argv, " "), out)
		must(t, err)
		for _, v := range vs {
			if (len(v.Sites) == 0) != (v.Name == "no-size-limit") {
				t.Errorf("%s: %s lists sites %v", strings.Join(argv, " "), v.Name, v.Sites)
			}
		}
	}
}
