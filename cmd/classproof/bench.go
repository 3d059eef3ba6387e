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

func benchCmd(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	o := bench.Defaults()
	var classes []string
	f := runner.DefaultsFor("bench")
	f.Table("bench").Define(fs)
	fs.IntVar(&o.N, "n", o.N, "CPU-busy load processes")
	fs.IntVar(&o.Runs, "runs", o.Runs, "runs per class, interleaved")
	fs.DurationVar(&o.Duration, "duration", o.Duration, "probe time per run")
	fs.IntVar(&o.Hz, "hz", o.Hz, "probe frame rate")
	fs.Float64Var(&o.FrameWorkMS, "frame-work-ms", o.FrameWorkMS, "probe work per frame, in ms of this machine's idle CPU")
	fs.Float64Var(&o.JobMS, "job-ms", o.JobMS, "the cost job's size, in ms of this machine's idle CPU")
	fs.Var(runner.List{To: &classes}, "class", "a class to run (repeatable; default: all on this OS; the first must be default)")
	fs.StringVar(&o.OutDir, "out", "out/bench", "folder for bench.md, bench.json and lateness.svg")
	ioBench := fs.Bool("io", false, "the I/O bench instead: a foreground's small direct reads and fdatasync'd writes while --n writers (default 4) load the disk at each class; as root on Linux on a loop-backed ext4 with bfq, made and removed under --out")
	noLoop := fs.Bool("no-loop", false, "with --io: run on --out's own filesystem, not on a loop device")
	ratio := fs.Float64("expect-background-ratio", 0, "fail unless default-class load's p95 lateness is at least this many times background's")
	smoke := fs.Bool("smoke", false, "a few seconds: 2 loads, 1 run of 300 ms, default and background; checks the bench works, proves nothing")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	o.Classes = classes
	var err error
	if o.Target, err = resolveTarget(f); err != nil {
		return fail("bench", err)
	}
	if *ioBench {
		return ioBenchCmd(ctx, fs, o, *noLoop, *smoke, args)
	}
	if *smoke {
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
	if *ratio > 0 && r.Ratio() < *ratio {
		fmt.Printf("classproof bench: FAILED: expected at least %.1fx\n", *ratio)
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
