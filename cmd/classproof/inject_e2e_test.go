//go:build e2e

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/classproof/classproof/helpers/binaries"
	"github.com/classproof/classproof/helpers/commands/mutants"
)

// Injected faults (issue 44) measure a launcher's lane without its source or a variant of it:
// with no values file, refmux's (Go: sched_setattr) and shmux's (bash, util-linux chrt:
// sched_setscheduler) class calls made a silent success, applied wrong or applied late are each
// caught, the calls neither makes are rows that never fired, and the matrix passes.
func TestInjectedFaultsAreCaughtOrNeverFired(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and runs the suites")
	}
	kit, err := binaries.KitDir()
	must(t, err)
	bin := buildCLI(t)
	dir := t.TempDir()
	for _, c := range []struct {
		target, caught, never string
	}{
		{"embedded:refmux.yaml", "sched_setattr", "sched_setscheduler"},
		{"embedded:shmux.yaml", "sched_setscheduler", "sched_setattr"},
	} {
		out := filepath.Join(dir, filepath.Base(c.target))
		code, log := cli(t, kit, bin, "mutants", "--inject", c.caught+","+c.never+",ioprio_set,"+c.caught+":wrong,ioprio_set:late", "--target", c.target,
			"--focus", "a direct session starts the direct harness", "--out", out)
		b, rerr := os.ReadFile(filepath.Join(out, "matrix.json"))
		var m mutants.Matrix
		if rerr == nil {
			rerr = json.Unmarshal(b, &m)
		}
		if code != exitPassed || rerr != nil || len(m.Rows) != 5 {
			t.Fatalf("%s: exit %d, %v, %d rows; want 0 and 5 rows:\n%s", c.target, code, rerr, len(m.Rows), log)
		}
		for _, r := range m.Rows {
			name := strings.TrimPrefix(r.Value.Name, mutants.InjectPrefix)
			switch {
			case name == c.never && !strings.HasPrefix(r.LeftOut, "never fired"):
				t.Errorf("%s: %s never called, yet its row is %+v", c.target, name, r)
			case name != c.never && (!r.Caught || r.LeftOut != ""):
				t.Errorf("%s: the %s fault was not caught: %+v\n%s", c.target, name, r, log)
			}
		}
	}
}
