// Package bench measures whether the class does its job: a foreground probe (a 120 Hz frame loop
// at normal class) against N CPU-busy load processes started at each class, through the target
// launcher where the class is the launcher's; and what the class costs: a fixed CPU job timed
// alone at each class. It reports; it never asserts timing in `make test`.
//
// CLI side: it must not import the Ginkgo DSL, Gomega, helpers/suite or fixtures/ (ci/layers.rules).
package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/classproof/classproof/helpers/base/identity"
	"github.com/classproof/classproof/helpers/binaries"
	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/manifest"
)

// Packages the bench builds.
const (
	ProbePackage = binaries.Module + "/fixtures/probe"
)

// Options size the bench.
type Options struct {
	Target      *manifest.Resolved // the launcher, resolved once by the CLI
	N           int                // load processes
	Runs        int                // runs per class, interleaved
	Duration    time.Duration      // probe time per run
	Hz          int
	FrameWorkMS float64 // probe work per frame, calibrated on the idle machine
	JobMS       float64 // the cost job's size, calibrated
	Classes     []string
	OutDir      string
	Log         io.Writer
}

// Defaults are sized for a 2-core machine, as the seed's bench had 14 busy processes.
func Defaults() Options {
	return Options{N: 14, Runs: 4, Duration: 3 * time.Second, Hz: 120, FrameWorkMS: 2, JobMS: 1000}
}

// Result is the whole bench.
type Result struct {
	Options    Options             `json:"-"`
	Machine    string              `json:"machine"`
	FrameWork  int                 `json:"frame_work_units"`
	JobWork    int                 `json:"job_work_units"`
	Classes    []Class             `json:"-"`
	ClassNames []string            `json:"classes"`
	Runs       map[string][]Sample `json:"runs"`
	Command    string              `json:"command"`
}

// Bench runs it.
func Bench(ctx context.Context, o Options) (*Result, error) {
	classes, err := pick(o.Classes)
	if err != nil {
		return nil, err
	}
	work, err := identity.Launcher().TempDir("classproof-bench")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	d, probe, err := prepareLauncher(ctx, o.Target, o.Log, work)
	if err != nil {
		return nil, err
	}

	r := &Result{Options: o, Classes: classes, Runs: map[string][]Sample{}, Machine: machine()}
	for _, c := range classes {
		r.ClassNames = append(r.ClassNames, c.Name)
	}
	// Calibrate on the idle machine, before any load: the same work is then done under each class.
	if r.FrameWork, err = calibrate(probe, o.FrameWorkMS); err != nil {
		return nil, err
	}
	if r.JobWork, err = calibrate(probe, o.JobMS); err != nil {
		return nil, err
	}
	return r, measure(ctx, o, r, d, probe, work)
}

// prepareLauncher makes the probe, the harness and the target in work, and a driver for the target.
func prepareLauncher(ctx context.Context, t *manifest.Resolved, log io.Writer, work string) (*launcher.Driver, string, error) {
	bin := filepath.Join(work, "bin")
	logf(Options{Log: log}, "building the target, the harness and the probe")
	if _, _, err := binaries.Launcher(ctx, t, binaries.Where{Dir: bin}, io.Discard); err != nil {
		return nil, "", err
	}
	probe := filepath.Join(bin, "probe")
	if err := binaries.GoBuild(ctx, t.Kit, ProbePackage, probe); err != nil {
		return nil, "", err
	}
	harness, err := binaries.Harness(ctx, t.Kit, bin) // the one way every command gets it
	if err != nil {
		return nil, "", err
	}
	d, err := launcher.New(t.Manifest, t.Paths(bin), harness)
	if err != nil {
		return nil, "", err
	}
	// The cost runs' jobs, started by the launcher, write their results there (sandboxed: never
	// next to the probe and harness in bin).
	d.Writes = append(d.Writes, filepath.Join(work, "jobs"))
	return d, probe, nil
}

// measure runs the load runs, interleaved, then the cost runs, into r. Each run starts and ends
// its own loads (loads.stop checks that none is left).
func measure(ctx context.Context, o Options, r *Result, d *launcher.Driver, probe, work string) error {
	classes := r.Classes
	// Interleaved: A B C A B C ..., so drift over the bench hits every class alike.
	for i := 0; i < o.Runs; i++ {
		for _, c := range classes {
			if err := ctx.Err(); err != nil {
				return err
			}
			logf(o, "run %d/%d: %d load processes at %s, probe for %v", i+1, o.Runs, o.N, c.Name, o.Duration)
			run, err := oneRun(ctx, o, d, c, probe, r.FrameWork, work)
			if err != nil {
				return fmt.Errorf("%s run %d: %w", c.Name, i+1, err)
			}
			r.Runs[c.Name] = append(r.Runs[c.Name], run)
		}
	}
	// The cost side, on a machine idle of the bench's own processes.
	if err := idle(probe, "before the cost runs"); err != nil {
		return err
	}
	for i := 0; i < o.Runs; i++ {
		for _, c := range classes {
			if err := ctx.Err(); err != nil {
				return err
			}
			logf(o, "cost %d/%d: the fixed job alone at %s", i+1, o.Runs, c.Name)
			ms, err := costRun(ctx, d, c, probe, r.JobWork, work)
			if err != nil {
				return fmt.Errorf("%s cost run %d: %w", c.Name, i+1, err)
			}
			r.Runs[c.Name][i].JobWallMS = ms
		}
	}
	return nil
}

func machine() string {
	out, _ := exec.Command("uname", "-srm").Output()
	return fmt.Sprintf("%s, %d CPUs", strings.TrimSpace(string(out)), runtime.NumCPU())
}

func logf(o Options, format string, a ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, "classproof bench: "+format+"\n", a...)
	}
}
