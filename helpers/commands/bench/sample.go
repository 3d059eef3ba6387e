package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/classproof/classproof/helpers/base/proc"
	"github.com/classproof/classproof/helpers/base/proctable"
	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/oracle"
)

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
