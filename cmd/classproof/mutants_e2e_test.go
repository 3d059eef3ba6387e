//go:build e2e

package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/classproof/classproof/fixtures/targets"
	"github.com/classproof/classproof/helpers/binaries"
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
