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
	"strings"
	"time"

	"github.com/classproof/classproof/helpers/base/files"
	"github.com/classproof/classproof/helpers/base/identity"
	"github.com/classproof/classproof/helpers/commands/bench/probeio"
	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/manifest"
	"github.com/classproof/classproof/helpers/oracle"
	"github.com/classproof/classproof/helpers/runner"
)

// The I/O half of the class: a foreground probe's small synchronous I/O (4 KiB direct reads and
// fdatasync'd 4 KiB writes) timed per operation while N load processes write and fsync large
// files at each class. I/O priorities act only under a scheduler that honours them (BFQ): as root
// on Linux the bench makes a loop-backed ext4 on a file under its out folder with bfq as that
// device's scheduler, and removes it after; otherwise it runs where it can and says that the
// scheduler there does not honour priorities.

// IOOptions size the I/O bench.
type IOOptions struct {
	Target   *manifest.Resolved // the launcher, resolved once by the CLI
	N        int                // load processes
	Runs     int                // runs per class, interleaved
	Duration time.Duration      // foreground time per run
	OutDir   string
	NoLoop   bool // run on the out folder's filesystem even where a loop device could be made
	Log      io.Writer
}

// IODefaults: 4 writers on 2 cores, 3 runs of 4 s per class.
func IODefaults() IOOptions {
	return IOOptions{N: 4, Runs: 3, Duration: 4 * time.Second}
}

// IOSample is one run of one class.
type IOSample struct {
	Class string `json:"class"`
	probeio.Readings
	LoadCheck string `json:"load_check"`
}

// IOResult is the whole I/O bench.
type IOResult struct {
	Options    IOOptions             `json:"-"`
	Machine    string                `json:"machine"`
	Filesystem string                `json:"filesystem"`
	Scheduler  string                `json:"scheduler"`
	Honoured   bool                  `json:"priorities_honoured"`
	Why        string                `json:"why,omitempty"` // why no loop device with bfq was made
	Classes    []string              `json:"classes"`
	Runs       map[string][]IOSample `json:"runs"`
	Command    string                `json:"command"`
}

// ioClasses: the foreground alone, then the load at each class.
func ioClasses() []Class {
	cs := []Class{
		{Name: "alone", Note: "no load: the foreground by itself"},
		{Name: "default", Launcher: "normal", Note: "the launcher's normal class"},
		{Name: "background", Launcher: "background", Note: "the launcher's background class"},
	}
	if runtime.GOOS == "linux" {
		cs = append(cs, Class{Name: "ionice-idle", Flags: []string{"--ionice", "idle"}, Note: "I/O class idle alone, CPU class normal"})
	}
	return cs
}

// IOBench runs it.
func IOBench(ctx context.Context, o IOOptions) (*IOResult, error) {
	// As root the bench makes a 1 GiB disk image and a mount point here: a folder another user
	// can write is one where a symlink sends the image over a file of theirs choosing.
	out, err := runner.OutFolder(o.OutDir)
	if err != nil {
		return nil, err
	}
	if strings.ContainsAny(out, " \t\n") {
		// The load's folder reaches the harness as --tool-args, split on spaces.
		return nil, fmt.Errorf("--out %q: the I/O bench needs a folder path without spaces", o.OutDir)
	}
	work, err := identity.Launcher().TempDir("classproof-iobench")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	d, probe, err := prepareLauncher(ctx, o.Target, o.Log, work)
	if err != nil {
		return nil, err
	}
	r := &IOResult{Options: o, Machine: machine(), Runs: map[string][]IOSample{}}
	fs, err := ioFilesystem(ctx, out, o)
	defer fs.close()
	if err != nil {
		return nil, err
	}
	r.Filesystem, r.Scheduler, r.Honoured, r.Why = fs.describe, fs.scheduler, fs.scheduler == "bfq", fs.why
	ioLogf(o, "filesystem: %s; scheduler: %s", r.Filesystem, r.SchedulerText())
	d.Writes = append(d.Writes, fs.dir) // the loads the harness starts write there, sandboxed

	classes := ioClasses()
	for _, c := range classes {
		r.Classes = append(r.Classes, c.Name)
	}
	for i := 0; i < o.Runs; i++ {
		for _, c := range classes {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			ioLogf(o, "run %d/%d: %s", i+1, o.Runs, c.Name)
			s, err := oneIORun(ctx, o, d, c, probe, fs.dir)
			if err != nil {
				return nil, fmt.Errorf("%s run %d: %w", c.Name, i+1, err)
			}
			r.Runs[c.Name] = append(r.Runs[c.Name], s)
		}
	}
	return r, nil
}

func oneIORun(ctx context.Context, o IOOptions, d *launcher.Driver, c Class, probe, dir string) (s IOSample, err error) {
	s = IOSample{Class: c.Name}
	n := o.N
	if c.Name == "alone" {
		n = 0
	}
	ls, err := startLoads(ctx, d, c, probe, n, "ioload", "--dir", dir)
	defer func() {
		err = errors.Join(err, ls.stop())
		// A killed load leaves its file: the next run starts on an empty disk. Remove takes a
		// name in the bench's own folder, a planted symlink included, never what one points at.
		left, _ := filepath.Glob(filepath.Join(dir, "load-*"))
		for _, f := range left {
			os.Remove(f)
		}
	}()
	if err == nil {
		err = ls.allRun(c.Name)
	}
	if err != nil {
		return s, err
	}
	loadPid := 0
	if n > 0 {
		loadPid = ls.pids[0]
	}
	result := filepath.Join(dir, fmt.Sprintf("fg-%s-%d.json", c.Name, time.Now().UnixNano()))
	cmd := exec.CommandContext(ctx, probe, "iofg", "--dir", dir, "--duration", o.Duration.String(), "--out", result)
	if b, err := cmd.CombinedOutput(); err != nil {
		return s, fmt.Errorf("probe iofg: %v %s", err, b)
	}
	if loadPid != 0 {
		// The oracle's reading of one load process, now that the foreground is done (a class the
		// load sets on itself is surely in place): the table shows each class was real.
		if ob, err := oracle.ObserveOne("io load", loadPid); err == nil {
			s.LoadCheck = ob.String()
		} else {
			s.LoadCheck = err.Error()
		}
	}
	// The launcher's tools write in dir too: the result is a claim until read as a regular file.
	b, err := files.ReadClaim(result, 1<<20)
	if err != nil {
		return s, err
	}
	os.Remove(result)
	if err := json.Unmarshal(b, &s); err != nil {
		return s, err
	}
	if s.Reads == 0 || s.Writes == 0 {
		return s, fmt.Errorf("the foreground reported no operations: %s", b)
	}
	return s, nil
}

// SchedulerText is the scheduler with what it means for the result.
func (r *IOResult) SchedulerText() string {
	if r.Honoured {
		return r.Scheduler + " (priorities honoured)"
	}
	if runtime.GOOS == "darwin" {
		return r.Scheduler + " (no block-layer scheduler: macOS throttles by each process's I/O policy)"
	}
	return r.Scheduler + " (priorities not honoured)"
}

type ioMetric struct {
	name string
	get  func(IOSample) float64
}

var ioMetrics = []ioMetric{
	{"read p50, ms", func(s IOSample) float64 { return s.ReadP50 }},
	{"read p95, ms", func(s IOSample) float64 { return s.ReadP95 }},
	{"read max, ms", func(s IOSample) float64 { return s.ReadMax }},
	{"write+fdatasync p50, ms", func(s IOSample) float64 { return s.WriteP50 }},
	{"write+fdatasync p95, ms", func(s IOSample) float64 { return s.WriteP95 }},
	{"write+fdatasync max, ms", func(s IOSample) float64 { return s.WriteMax }},
	{"foreground reads done", func(s IOSample) float64 { return float64(s.Reads) }},
}

// Table: each figure the median of the runs, the runs in brackets.
func (r *IOResult) Table() string {
	var b strings.Builder
	b.WriteString("| foreground I/O |")
	for _, c := range r.Classes {
		fmt.Fprintf(&b, " load at %s |", c)
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(r.Classes)) + "\n")
	for _, m := range ioMetrics {
		fmt.Fprintf(&b, "| %s |", m.name)
		for _, c := range r.Classes {
			var each []string
			for _, s := range r.Runs[c] {
				each = append(each, fmt.Sprintf("%.2f", m.get(s)))
			}
			fmt.Fprintf(&b, " %.2f (runs: %s) |", medianIO(r.Runs[c], m.get), strings.Join(each, ", "))
		}
		b.WriteString("\n")
	}
	b.WriteString("| a load process's I/O class |")
	for _, c := range r.Classes {
		check := "-"
		if runs := r.Runs[c]; len(runs) > 0 && runs[0].LoadCheck != "" {
			check = runs[0].LoadCheck
		}
		fmt.Fprintf(&b, " %s |", check)
	}
	b.WriteString("\n")
	return b.String()
}

func medianIO(runs []IOSample, f func(IOSample) float64) float64 {
	v := make([]float64, 0, len(runs))
	for _, r := range runs {
		v = append(v, f(r))
	}
	return median(v)
}

// Write puts io.md and io.json in dir.
func (r *IOResult) Write(dir string) error {
	b, _ := json.MarshalIndent(r, "", "  ")
	if err := files.WriteFile(filepath.Join(dir, "io.json"), b, 0o644); err != nil {
		return err
	}
	why := ""
	if r.Why != "" {
		why = " (" + r.Why + ")"
	}
	md := fmt.Sprintf("Machine: %s. Filesystem: %s; scheduler: %s%s. %d load processes writing 64 MiB files with an fsync every 8 MiB; foreground: 4 KiB direct reads and 4 KiB writes + fdatasync, alternating, %v per run; %d runs per class, interleaved.\nCommand: `%s`\n\n%s",
		r.Machine, r.Filesystem, r.SchedulerText(), why, r.Options.N, r.Options.Duration, r.Options.Runs, r.Command, r.Table())
	return files.WriteFile(filepath.Join(dir, "io.md"), []byte(md), 0o644)
}

func ioLogf(o IOOptions, format string, a ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, "classproof bench --io: "+format+"\n", a...)
	}
}
