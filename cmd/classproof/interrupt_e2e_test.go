//go:build e2e

package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/classproof/classproof/helpers/binaries"
)

// Ctrl-C during `classproof mutants` after its first cell: no further cell starts, the CLI says it
// was interrupted, exits 1 within seconds, and leaves no matrix that reads as complete.
func TestAnInterruptedMatrixSaysSoAndCatchesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and runs the suites")
	}
	kit, err := binaries.KitDir()
	if err != nil {
		t.Fatal(err)
	}
	bin := buildCLI(t)
	values := filepath.Join(t.TempDir(), "variants.tsv")
	must(t, os.WriteFile(values, []byte("noclass\tno class step\ndirect-only\tthe host ignores cpu_class\nignore-optout\tnormal is ignored\n"), 0o644))
	out := t.TempDir()
	// What a finished matrix of an earlier run left must not survive as this run's.
	must(t, os.WriteFile(filepath.Join(out, "matrix.md"), []byte("all caught\n"), 0o644))
	cmd := exec.Command(bin, "mutants", "--values-file", values, "--jobs", "1", "--out", out)
	cmd.Dir = kit
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	progress, err := cmd.StderrPipe()
	must(t, err)
	must(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill() }()
	// The first cell after the baseline: interrupt it as it starts.
	lines := bufio.NewScanner(progress)
	var seen []string
	for lines.Scan() {
		seen = append(seen, lines.Text())
		if strings.HasPrefix(lines.Text(), "classproof mutants: noclass on") {
			break
		}
	}
	began := time.Now()
	must(t, cmd.Process.Signal(os.Interrupt))
	for lines.Scan() {
		seen = append(seen, lines.Text())
	}
	err = cmd.Wait()
	took := time.Since(began)
	log := stdout.String() + strings.Join(seen, "\n")
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("exit %v, want 1:\n%s", err, log)
	}
	if took > 15*time.Second {
		t.Errorf("the CLI took %v after Ctrl-C", took)
	}
	if strings.Contains(log, "caught") && !strings.Contains(log, "nothing caught") {
		t.Errorf("an interrupted matrix says something was caught:\n%s", log)
	}
	if !strings.Contains(stdout.String(), "interrupted: the matrix is incomplete; no matrix was written") {
		t.Errorf("stdout does not say it was interrupted:\n%s", log)
	}
	for _, v := range []string{"direct-only", "ignore-optout"} {
		if strings.Contains(log, "classproof mutants: "+v+" on") {
			t.Errorf("cell %s started after the interrupt:\n%s", v, log)
		}
	}
	for _, f := range []string{"matrix.md", "matrix.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err == nil {
			t.Errorf("%s was left in %s", f, out)
		}
	}
}

// buildCLI builds this package's CLI into a temporary folder for a test to run as a user would.
func buildCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "classproof")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return bin
}
