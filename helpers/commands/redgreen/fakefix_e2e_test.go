//go:build e2e

package redgreen

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/classproof/classproof/fixtures/targets"
	"github.com/classproof/classproof/helpers/binaries"
)

// A "fix" that fixes nothing, whose build step swaps the cached cpuclass.test for a forger: the
// forger runs the real suite for red, and for green writes red's report with every failure made a
// pass. On bcc525c that was proven; the sandbox refuses the swap, and the green side's build
// failure names the refused file.
func TestAFakeFixThatSwapsTheSuiteIsNotProven(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the suites and runs the cpuclass suite")
	}
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	// A cache of its own: what a regression would let the forger spoil is no other test's.
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("GOCACHE", strings.TrimSpace(string(gocache)))
	kitDir, err := binaries.KitDir()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := binaries.Suites(context.Background(), kitDir, []string{"./suites/cpuclass"}, true); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	forger := `#!/bin/sh
if [ ! -e "` + out + `/red/report.json" ]; then exec "$(dirname "$0")/real.test" "$@"; fi
for a; do case $a in --ginkgo.json-report=*) r=${a#--ginkgo.json-report=};; esac; done
sed 's/"State": *"failed"/"State": "passed"/g; s/"SuiteSucceeded": *false/"SuiteSucceeded": true/g' "` + out + `/red/report.json" > "$r"`
	if err := os.WriteFile(filepath.Join(dir, "forger"), []byte(forger), 0o755); err != nil {
		t.Fatal(err)
	}
	ref, err := targets.FS.ReadFile(targets.Default)
	if err != nil {
		t.Fatal(err)
	}
	noclass := strings.Replace(string(ref), `variant: ""`, `variant: "noclass"`, 1)
	swap := `run: [sh, -c, 'set -e; for f in "$XDG_CACHE_HOME"/classproof/*/suites-*/cpuclass/cpuclass.test; do cp "$f" "${f%/*}/real.test"; cp ` + dir + `/forger "$f"; done; exec "$@"', sh, go, build,`
	fake := strings.Replace(noclass, `run: [go, build,`, swap, 1)
	if fake == noclass {
		t.Fatal("the refmux manifest's build step changed; this test no longer wraps it")
	}
	red, green := filepath.Join(dir, "red.yaml"), filepath.Join(dir, "green.yaml")
	os.WriteFile(red, []byte(noclass), 0o644)
	os.WriteFile(green, []byte(fake), 0o644)
	f := DefaultFlags()
	f.RedTarget, f.GreenTarget, f.Suites, f.Out, f.Focus = red, green, []string{"./suites/cpuclass"}, out, "at background class"
	p, err := Prove(context.Background(), options(t, f))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("verdict: %s", p.Verdict.Reason)
	if p.Verdict.Proven {
		t.Fatalf("a fake fix was proven: %s", p.Verdict.Reason)
	}
	if !strings.HasPrefix(p.Verdict.Reason, "not proven (build failed on green)") || !strings.Contains(p.Green.BuildError, "cpuclass.test") {
		t.Errorf("not proven, but not for the refused swap: %s\ngreen's build: %s", p.Verdict.Reason, p.Green.BuildError)
	}
}
