// Package bench measures whether the class does its job: a foreground probe (a 120 Hz frame loop
// at normal class) against N CPU-busy load processes started at each class, through the target
// launcher where the class is the launcher's; and what the class costs: a fixed CPU job timed
// alone at each class. It reports; it never asserts timing in `make test`.
//
// CLI side: it must not import the Ginkgo DSL, Gomega, helpers/suite or fixtures/ (ci/layers.rules).
package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/classproof/classproof/helpers/base/identity"
	"github.com/classproof/classproof/helpers/base/proc"
	"github.com/classproof/classproof/helpers/base/proctable"
	"github.com/classproof/classproof/helpers/binaries"
	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/manifest"
	"github.com/classproof/classproof/helpers/oracle"
)

// Packages the bench builds.
const (
	ProbePackage = binaries.Module + "/fixtures/probe"
)

// Class is one way of starting the load.
type Class struct {
	Name string
	// Launcher: started as launcher sessions with the class env var set to this value.
	Launcher string
	// Otherwise the kit starts the load itself, in a session of its own (as a launcher would),
	// with these probe flags.
	Flags []string
	Note  string
}

// Classes available on this OS. The first is the baseline ("default").
func Classes() []Class {
	cs := []Class{
		{Name: "default", Launcher: "normal", Note: "the launcher's normal class"},
		{Name: "background", Launcher: "background", Note: "the launcher's background class"},
	}
	if runtime.GOOS == "linux" {
		cs = append(cs,
			Class{Name: "nice10", Flags: []string{"--nice", "10", "--autogroup", "10"}, Note: "nice 10 (process and its autogroup)"},
			Class{Name: "nice19", Flags: []string{"--nice", "19", "--autogroup", "19"}, Note: "nice 19 (process and its autogroup)"},
			Class{Name: "idle-no-autogroup", Flags: []string{"--sched", "idle"}, Note: "SCHED_IDLE in a session of its own, autogroup nice left at 0 (the trap)"},
		)
	}
	return cs
}

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

// Run is one class's run.
type Sample struct {
	Class       string  `json:"class"`
	P50MS       float64 `json:"p50_ms"`
	P95MS       float64 `json:"p95_ms"`
	MaxMS       float64 `json:"max_ms"`
	Missed      int     `json:"missed"`
	Dropped     int     `json:"dropped"`
	Frames      int     `json:"frames"`
	CPUPerFrame float64 `json:"cpu_ms_per_frame"`
	JobWallMS   float64 `json:"job_wall_ms"`
	LoadCheck   string  `json:"load_check"` // what ps said of one load process, so a run shows its class was real
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

func pick(names []string) ([]Class, error) {
	all := Classes()
	if len(names) == 0 {
		return all, nil
	}
	var out []Class
	for _, n := range names {
		found := false
		for _, c := range all {
			if c.Name == n {
				out = append(out, c)
				found = true
			}
		}
		if !found {
			var known []string
			for _, c := range all {
				known = append(known, c.Name)
			}
			return nil, fmt.Errorf("class %q is not known on %s; known: %s", n, runtime.GOOS, strings.Join(known, ", "))
		}
	}
	if out[0].Name != "default" {
		return nil, fmt.Errorf("the first class must be default: the deltas are against it")
	}
	return out, nil
}

func calibrate(probe string, ms float64) (int, error) {
	out, err := exec.Command(probe, "calibrate", "--ms", strconv.FormatFloat(ms, 'f', -1, 64)).Output()
	if err != nil {
		return 0, fmt.Errorf("calibrating: %w", err)
	}
	return strconv.Atoi(strings.TrimSpace(string(out)))
}

func oneRun(ctx context.Context, o Options, d *launcher.Driver, c Class, probe string, units int, work string) (run Sample, err error) {
	run = Sample{Class: c.Name}
	ls, err := startLoads(ctx, d, c, probe, o.N, "load")
	defer func() { err = errors.Join(err, ls.stop()) }()
	if err == nil {
		err = ls.allRun(c.Name)
	}
	if err != nil {
		return run, err
	}
	// The oracle's reading of one load process: the table shows each class was real.
	if o, err := oracle.ObserveOne("load", ls.pids[0]); err == nil {
		run.LoadCheck = o.String()
	} else {
		run.LoadCheck = err.Error()
	}
	out := filepath.Join(work, fmt.Sprintf("frames-%s-%d.json", c.Name, time.Now().UnixNano()))
	cmd := exec.CommandContext(ctx, probe, "frames", "--hz", strconv.Itoa(o.Hz), "--duration", o.Duration.String(),
		"--work", strconv.Itoa(units), "--out", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		return run, fmt.Errorf("probe: %v %s", err, b)
	}
	// The probe's JSON has the same field names as Run.
	b, err := os.ReadFile(out)
	if err != nil {
		return run, err
	}
	if err := json.Unmarshal(b, &run); err != nil {
		return run, err
	}
	if run.Frames == 0 || run.CPUPerFrame <= 0 {
		return run, fmt.Errorf("the probe reported no frames or no CPU time: %s", b[:min(len(b), 200)])
	}
	return run, nil
}

func costRun(ctx context.Context, d *launcher.Driver, c Class, probe string, units int, work string) (ms float64, err error) {
	out := filepath.Join(work, "jobs", fmt.Sprintf("job-%s-%d.json", c.Name, time.Now().UnixNano()))
	ls, err := startLoads(ctx, d, c, probe, 1, "job", "--work", strconv.Itoa(units), "--out", out)
	defer func() { err = errors.Join(err, ls.stop()) }()
	if err != nil {
		return 0, err
	}
	pid := ls.pids[0]
	var j struct {
		WallMS float64 `json:"wall_ms"`
	}
	err = proc.Until(time.Now().Add(5*time.Minute), 20*time.Millisecond, func() (bool, error) {
		b, err := os.ReadFile(out)
		if err != nil {
			// A job that ended without its result will not write it: say so now, not in 5 minutes.
			if alive, lerr := proctable.Alive(pid); lerr == nil && !alive {
				if _, err := os.Stat(out); err != nil {
					return false, fmt.Errorf("the job (pid %d) ended without writing %s", pid, out)
				}
			}
			return false, ctx.Err()
		}
		return true, json.Unmarshal(b, &j)
	})
	if errors.Is(err, proc.ErrDeadline) {
		return 0, fmt.Errorf("the job did not finish within 5 minutes")
	}
	return j.WallMS, err
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

// Median of a metric over a class's runs.
func Median(runs []Sample, f func(Sample) float64) float64 {
	v := make([]float64, 0, len(runs))
	for _, r := range runs {
		v = append(v, f(r))
	}
	return median(v)
}

func median(v []float64) float64 {
	sort.Float64s(v)
	if len(v) == 0 {
		return 0
	}
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}
