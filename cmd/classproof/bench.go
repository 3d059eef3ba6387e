package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/classproof/classproof/helpers/commands/bench"
	"github.com/classproof/classproof/helpers/runner"
)

var benchCommand = command{"bench", "does the class keep a foreground probe on time under load, and what does it cost",
	"classproof bench --out out/bench", "0 measured; 1 an expectation failed; 2 bad flags, no Go, or a bench that could not measure or write its results", needsGo("bench", "it builds the probe and the load", benchCmd)}

// benchRunFlags is bench's share of the run flags: the target's, and where it writes.
var benchRunFlags = runner.Share{Takes: runner.TargetFlags | runner.FlagOut, Defaults: runner.RunFlags{Out: "out/bench"},
	Out: "folder for bench.md, bench.json and lateness.svg"}

// benchFlags are bench's flags: the bench's options, which bench and how, and its share of the
// run flags.
type benchFlags struct {
	o                 bench.Options
	classes           []string
	io, noLoop, smoke bool
	ratio             float64
	runner.RunFlags
}

func (b *benchFlags) table() runner.Table {
	own := runner.Table{
		{Name: "n", Num: &b.o.N, Usage: "CPU-busy load processes"},
		{Name: "runs", Num: &b.o.Runs, Usage: "runs per class, interleaved"},
		{Name: "duration", Dur: &b.o.Duration, Usage: "probe time per run"},
		{Name: "hz", Num: &b.o.Hz, Usage: "probe frame rate"},
		{Name: "frame-work-ms", Float: &b.o.FrameWorkMS, Usage: "probe work per frame, in ms of this machine's idle CPU"},
		{Name: "job-ms", Float: &b.o.JobMS, Usage: "the cost job's size, in ms of this machine's idle CPU"},
		{Name: "class", List: &b.classes, Usage: "a class to run (repeatable; default: all on this OS; the first must be default)"},
		{Name: "io", On: &b.io, Usage: "the I/O bench instead: a foreground's small direct reads and fdatasync'd writes while --n writers (default 4) load the disk at each class; as root on Linux on a loop-backed ext4 with bfq, made and removed under --out"},
		{Name: "no-loop", On: &b.noLoop, Usage: "with --io: run on --out's own filesystem, not on a loop device"},
		{Name: "expect-background-ratio", Float: &b.ratio, Usage: "fail unless default-class load's p95 lateness is at least this many times background's"},
		{Name: "smoke", On: &b.smoke, Usage: "a few seconds: 2 loads, 1 run of 300 ms, default and background; checks the bench works, proves nothing"},
	}
	return append(own, b.RunFlags.Table(benchRunFlags)...)
}

func benchCmd(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	b := benchFlags{o: bench.Defaults(), RunFlags: benchRunFlags.Defaults}
	b.table().Define(fs)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	o := b.o
	o.Classes, o.OutDir = b.classes, b.Out
	var err error
	if o.Target, err = resolveTarget(b.RunFlags); err != nil {
		return fail("bench", err)
	}
	if b.io {
		return ioBenchCmd(ctx, fs, o, b.noLoop, b.smoke, args)
	}
	if b.smoke {
		o.N, o.Runs, o.Duration, o.JobMS = 2, 1, 300*time.Millisecond, 50
		if len(o.Classes) == 0 {
			o.Classes = []string{"default", "background"}
		}
	}
	o.Log = os.Stderr
	r, err := bench.Bench(ctx, o)
	if err != nil {
		return fail("bench", err)
	}
	r.Command = "classproof bench " + strings.Join(args, " ")
	if err := r.Write(o.OutDir); err != nil {
		return fail("bench", err)
	}
	fmt.Print(r.Table())
	fmt.Printf("\n%s\n", r.RatioText())
	fmt.Printf("wrote %s, %s, %s\n", filepath.Join(o.OutDir, "bench.md"), filepath.Join(o.OutDir, "bench.json"), filepath.Join(o.OutDir, "lateness.svg"))
	if b.ratio > 0 && r.Ratio() < b.ratio {
		fmt.Printf("classproof bench: FAILED: expected at least %.1fx\n", b.ratio)
		return exitFailed
	}
	return exitPassed
}

// ioBenchCmd runs bench --io: the CPU bench's flags it shares are --target, --var, --n, --runs,
// --duration and --out.
func ioBenchCmd(ctx context.Context, fs *flag.FlagSet, cpu bench.Options, noLoop, smoke bool, args []string) int {
	o := bench.IODefaults()
	o.Target, o.OutDir, o.NoLoop, o.Log = cpu.Target, cpu.OutDir, noLoop, os.Stderr
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["n"] {
		o.N = cpu.N
	}
	if set["runs"] {
		o.Runs = cpu.Runs
	}
	if set["duration"] {
		o.Duration = cpu.Duration
	}
	if smoke {
		o.N, o.Runs, o.Duration = 1, 1, 300*time.Millisecond
	}
	r, err := bench.IOBench(ctx, o)
	if err != nil {
		return fail("bench --io", err)
	}
	r.Command = "classproof bench " + strings.Join(args, " ")
	if err := r.Write(o.OutDir); err != nil {
		return fail("bench --io", err)
	}
	fmt.Printf("filesystem: %s\nscheduler: %s\n\n%s", r.Filesystem, r.SchedulerText(), r.Table())
	fmt.Printf("wrote %s, %s\n", filepath.Join(o.OutDir, "io.md"), filepath.Join(o.OutDir, "io.json"))
	return exitPassed
}
