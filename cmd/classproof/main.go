// Command classproof runs the kit: `classproof run` runs the suites for one lane against a
// target launcher and prints what was proved. Its logic lives in helpers/; this is flags only.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/classproof/classproof/fixtures/targets"
	"github.com/classproof/classproof/helpers/actions"
	"github.com/classproof/classproof/helpers/bench"
	"github.com/classproof/classproof/helpers/build"
	"github.com/classproof/classproof/helpers/doctor"
	"github.com/classproof/classproof/helpers/gate"
	"github.com/classproof/classproof/helpers/lane"
	"github.com/classproof/classproof/helpers/mutants"
	"github.com/classproof/classproof/helpers/proc"
	"github.com/classproof/classproof/helpers/redgreen"
	"github.com/classproof/classproof/helpers/report"
	"github.com/classproof/classproof/helpers/runner"
)

// Exit codes, documented in README.md.
const (
	exitPassed = 0 // run passed; redgreen proven; gate pass; doctor drivable; mutants all caught
	exitFailed = 1 // a spec failed, a process leaked, the run was interrupted; not proven; blocked
	exitUsage  = 2 // bad flags, or a manifest, launcher, repository or list that cannot be used
)

type multi []string

func (m *multi) String() string     { return strings.Join(*m, " ") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

// workflow guards stdout in GitHub Actions: nothing a launcher prints acts as a workflow command
// (actions.Guard); the kit's own annotations go through it.
var workflow *actions.Guard

func main() {
	workflow = actions.Stop(os.Stdout)
	code := dispatch(os.Args[1:])
	// Before the guard lifts: nothing a launcher left could write to stdout after it.
	if leaks, err := proc.CloseContained(); len(leaks) > 0 || err != nil {
		for _, l := range leaks {
			fmt.Printf("LEAK: %s was still in classproof's cgroup at exit (killed now)\n", l)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "classproof:", err)
		}
		code = max(code, exitFailed)
	}
	workflow.Resume()
	os.Exit(code)
}

func laneNames() []string { return lane.Names() }

func runCmd(args []string) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	// The embedded default launchers are chosen here, at the edge: helpers/ knows none by name.
	o := runner.Options{Catalog: targets.Catalog()}
	var vars, suites multi
	fs.StringVar(&o.Target, "target", "", "target manifest (default: the embedded refmux.yaml)")
	fs.Var(&vars, "var", "NAME=VALUE: set a var the manifest declares (repeatable), e.g. variant=noclass")
	fs.StringVar(&o.Lane, "lane", "", "darwin, linux-idle or linux-ignore (default: this OS's lane for the target; another is refused)")
	fs.Var(&suites, "suite", "a suite to run, e.g. ./suites/cpuclass (repeatable; default: all)")
	fs.StringVar(&o.OutDir, "out", "out/run", "folder for report.json, junit.xml and the pid ledger")
	fs.IntVar(&o.Procs, "procs", 1, "Ginkgo parallel processes")
	fs.StringVar(&o.LabelFilter, "label-filter", "", "a further Ginkgo label filter, ANDed with the lane's")
	fs.StringVar(&o.Focus, "focus", "", "a Ginkgo focus regexp")
	fs.DurationVar(&o.Timeout, "timeout", 30*time.Minute, "the whole run: the launcher's build, compiling the suites, the suites")
	fs.StringVar(&o.Repo, "repo", "", "the launcher's source tree, for the manifest's {repo} (default: the root of the git repository you are in, else this folder)")
	fs.BoolVar(&o.DryRun, "dry-run", false, "list what the lane would run, running nothing (any OS: a rehearsal of another OS's lane)")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	o.Vars, o.Suites, o.Log = vars, suites, os.Stdout
	var err error
	if o.Repo, err = repoDir(o.Repo); err != nil {
		fmt.Fprintln(os.Stderr, "classproof:", err)
		return exitUsage
	}
	if o.KitDir, err = build.KitDir(); err != nil {
		fmt.Fprintln(os.Stderr, "classproof:", err)
		return exitUsage
	}
	res, err := runner.Run(context.Background(), o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "classproof:", err)
		return exitUsage
	}
	printRun(res, o.DryRun)
	if !res.Passed() {
		return exitFailed
	}
	return exitPassed
}

// printRun prints a run's summary, its leaks, refusals and lane problems, its counts, and in
// GitHub Actions its annotations and step summary.
func printRun(res *runner.Result, dryRun bool) {
	fmt.Println()
	if res.Run != nil && dryRun {
		c := res.Run.Count()
		fmt.Printf("classproof: dry run of lane %s: %d specs selected, %d left out by the filter; nothing was executed, nothing is proved\n", res.Lane, c.Ran, c.Filtered)
	} else if res.Run != nil {
		fmt.Print(res.Run.Summary(res.Filter))
	} else {
		fmt.Println("classproof: no report was written (the run stopped before Ginkgo reported)")
		if res.Stopped != "" {
			fmt.Println("classproof: it stopped: " + res.Stopped)
		}
	}
	for _, l := range res.Leaks {
		fmt.Printf("LEAK: %s was still alive after the run (killed now)\n", l)
	}
	for _, l := range res.Refused {
		fmt.Printf("REFUSED LEDGER LINE: %s\n", l)
	}
	for _, p := range res.Problems {
		fmt.Printf("FAILED LANE: %s\n", p)
	}
	if res.Containment != "" {
		fmt.Printf("containment: %s\n", res.Containment)
	}
	if res.Sandbox.Kind != "" {
		fmt.Printf("sandbox: %s\n", res.Sandbox)
	}
	fmt.Printf("reports: %s, %s (%.1fs)\n", res.ReportPath, res.JUnitPath, res.Duration.Seconds())
	if res.Run != nil && !dryRun {
		c := res.Run.Count()
		fmt.Printf("classproof: %d passed, %d failed, %d skipped\n", c.Passed, c.Failed, c.Skipped)
		if actions.On() {
			workflow.Annotate(res.Run)
			for _, p := range res.Problems {
				workflow.Error("lane "+res.Lane, p)
			}
			if err := actions.Summary(actions.LaneSummary(res.Lane, res.Target.Name, res.Run, res.Problems, res.Containment, res.Sandbox.String())); err != nil {
				fmt.Fprintln(os.Stderr, "classproof:", err)
			}
		}
	}
}

func redgreenCmd(args []string) int {
	fs := flag.NewFlagSet("redgreen", flag.ContinueOnError)
	o := redgreen.Options{Catalog: targets.Catalog()}
	var vars, suites multi
	fs.StringVar(&o.Repo, "repo", "", "the launcher's git repository (default, without --red-target/--green-target: the one you are in)")
	fs.StringVar(&o.Red, "red", "", "the ref that must fail (the commit before the fix)")
	fs.StringVar(&o.Green, "green", "", "the ref that must pass (the fix)")
	fs.StringVar(&o.Target, "target", "", "manifest whose build step builds {repo}")
	fs.StringVar(&o.RedTarget, "red-target", "", "instead of --repo: manifest of a prebuilt red launcher")
	fs.StringVar(&o.GreenTarget, "green-target", "", "instead of --repo: manifest of a prebuilt green launcher")
	fs.StringVar(&o.Selection.Focus, "focus", "", "regexp on the full spec text: the specs the proof is about")
	fs.StringVar(&o.Selection.LabelFilter, "label-filter", "", "Ginkgo label query: the specs the proof is about")
	fs.Var(&suites, "suite", "a suite to run, e.g. ./suites/cpuclass (repeatable; default: all)")
	fs.Var(&vars, "var", "NAME=VALUE for the manifest (repeatable)")
	fs.StringVar(&o.Lane, "lane", "", "the lane (default: this OS's lane for the target)")
	fs.StringVar(&o.OutDir, "out", "out/redgreen", "folder for the receipts and each side's reports")
	fs.IntVar(&o.Repeat, "repeat", 0, "run green this many more times, to show it is stable")
	fs.BoolVar(&o.AllowDirty, "allow-dirty", false, "prove refs at HEAD although tracked files have uncommitted changes (the receipt says so)")
	fs.IntVar(&o.Procs, "procs", 1, "Ginkgo parallel processes")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	o.Vars, o.Suites = vars, suites
	if runner.IsTerminal(os.Stderr) && os.Getenv("CI") == "" {
		o.Progress = os.Stderr
	}
	var err error
	if o.RedTarget == "" && o.GreenTarget == "" {
		if o.Repo, err = repoDir(o.Repo); err != nil {
			fmt.Fprintln(os.Stderr, "classproof redgreen:", err)
			return exitUsage
		}
	}
	if o.KitDir, err = build.KitDir(); err != nil {
		fmt.Fprintln(os.Stderr, "classproof:", err)
		return exitUsage
	}
	p, err := redgreen.Prove(context.Background(), o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "classproof redgreen:", err)
		return exitUsage
	}
	fmt.Print(redgreen.Markdown(p))
	fmt.Printf("\nreceipts: %s, %s\n", filepath.Join(p.Options.OutDir, "receipt.md"), filepath.Join(p.Options.OutDir, "receipt.json"))
	if actions.On() {
		if !p.Verdict.Proven {
			workflow.Error("classproof redgreen", p.Verdict.Reason)
		}
		if err := actions.Summary(redgreen.Markdown(p)); err != nil {
			fmt.Fprintln(os.Stderr, "classproof redgreen:", err)
		}
	}
	if !p.Verdict.Proven {
		return exitFailed
	}
	return exitPassed
}

func mutantsCmd(args []string) int {
	fs := flag.NewFlagSet("mutants", flag.ContinueOnError)
	o := mutants.Options{Catalog: targets.Catalog()}
	var targetsFlag multi
	fs.Var(&targetsFlag, "target", "a manifest (repeatable; default: embedded:refmux.yaml)")
	fs.StringVar(&o.Var, "var", "variant", "the manifest var that selects a broken build")
	valuesFile := fs.String("values-file", "", "the variants, one per line: NAME<TAB>what it breaks[<TAB>only=GOOS: why] (e.g. from 'go run ./fixtures/refmux variants')")
	fs.StringVar(&o.OutDir, "out", "out/mutants", "folder for matrix.md, matrix.json and each run's reports")
	fs.IntVar(&o.Jobs, "jobs", runtime.NumCPU(), "runs side by side (each a whole run of its lane)")
	fs.IntVar(&o.Procs, "procs", 1, "Ginkgo parallel processes")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	o.Targets = targetsFlag
	if len(o.Targets) == 0 {
		o.Targets = []string{"embedded:refmux.yaml"}
	}
	b, err := os.ReadFile(*valuesFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "classproof mutants: --values-file:", err)
		return exitUsage
	}
	if o.Values, err = mutants.ParseValues(*valuesFile, b); err != nil {
		fmt.Fprintln(os.Stderr, "classproof mutants: --values-file:", err)
		return exitUsage
	}
	if o.KitDir, err = build.KitDir(); err != nil {
		fmt.Fprintln(os.Stderr, "classproof:", err)
		return exitUsage
	}
	o.Progress = os.Stderr
	// An interrupt starts no further cell and cuts the running ones short (their cleanups run).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	m, err := mutants.Kill(ctx, o)
	if errors.Is(err, mutants.ErrInterrupted) {
		fmt.Println("classproof mutants:", err)
		return exitFailed
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "classproof mutants:", err)
		return exitUsage
	}
	fmt.Print(mutants.Markdown(m))
	caught, notCaught, leftOut := m.Counts()
	if !m.OK {
		fmt.Printf("\nclassproof mutants: %d of %d variants were caught by no spec\n", notCaught, caught+notCaught)
		return exitFailed
	}
	fmt.Printf("\nclassproof mutants: all %d variants caught", caught)
	if leftOut > 0 {
		fmt.Printf(" (%d left out on %s: they mean nothing there)", leftOut, runtime.GOOS)
	}
	fmt.Println()
	return exitPassed
}

// expectations are what the gate requires reports of: --lanes names, and --matrix's
// (lane, runner) pairs.
func expectations(lanes, matrix string) ([]string, error) {
	var expect []string
	if lanes != "" {
		expect = strings.Split(lanes, ",")
	}
	if matrix == "" {
		return expect, nil
	}
	pairs, err := gate.ParseMatrix(matrix)
	if err != nil {
		return nil, fmt.Errorf("--matrix: %w", err)
	}
	return append(expect, pairs...), nil
}

func gateCmd(args []string) int {
	fs := flag.NewFlagSet("gate", flag.ContinueOnError)
	reports := fs.String("reports", "out/lanes", "folder holding each lane's report folder (report.json + run.json), at any depth")
	required := fs.String("required", "ci/required-specs.yaml", "required specs per lane; empty for none")
	lanesFlag := fs.String("lanes", "", "comma-separated lanes that must have reports (default: every lane in the required list)")
	matrix := fs.String("matrix", "", `the workflow's lane matrix, JSON [{"lane": L, "runner": R}, ...]: each pair must have a complete report in REPORTS/R/L`)
	junit := fs.String("junit", "", "write a JUnit summary here (default: REPORTS/gate-junit.xml)")
	requireSandbox := fs.Bool("require-sandbox", false, "block every lane whose launcher ran without a sandbox (run.json sandboxed: false)")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	var req *gate.Required
	if *required != "" {
		var err error
		if req, err = gate.LoadRequired(*required); err != nil {
			fmt.Fprintln(os.Stderr, "classproof gate:", err)
			return exitUsage
		}
	}
	expect, err := expectations(*lanesFlag, *matrix)
	if err != nil {
		fmt.Fprintln(os.Stderr, "classproof gate:", err)
		return exitUsage
	}
	v, err := gate.EvaluateWith(*reports, req, expect, gate.Options{RequireSandbox: *requireSandbox})
	if err != nil {
		fmt.Fprintln(os.Stderr, "classproof gate:", err)
		return exitUsage
	}
	fmt.Print(v.Table())
	if actions.On() {
		for _, r := range v.Reasons {
			workflow.Error("classproof gate", r)
		}
		if err := actions.Summary("### classproof gate\n\n" + report.Fence(v.Table())); err != nil {
			fmt.Fprintln(os.Stderr, "classproof gate:", err)
		}
	}
	if *junit == "" {
		*junit = filepath.Join(*reports, "gate-junit.xml")
	}
	if err := v.WriteJUnit(*junit); err != nil {
		fmt.Fprintln(os.Stderr, "classproof gate: writing JUnit:", err)
		return exitUsage
	}
	return printGate(v)
}

// printGate prints the gate's verdict and its counts; the exit code says it.
func printGate(v *gate.Verdict) int {
	var passed, failed, skipped int
	for _, l := range v.Lanes {
		passed, failed, skipped = passed+l.Count.Passed, failed+l.Count.Failed, skipped+l.Count.Skipped
	}
	code := exitPassed
	if !v.Pass {
		fmt.Printf("\nclassproof gate: BLOCKED (%d reasons):\n", len(v.Reasons))
		for _, r := range v.Reasons {
			fmt.Println("  - " + r)
		}
		code = exitFailed
	} else {
		fmt.Printf("\nclassproof gate: PASS (%d lane reports)\n", len(v.Lanes))
	}
	fmt.Printf("gate: %d passed, %d failed, %d skipped\n", passed, failed, skipped)
	return code
}

func doctorCmd(args []string) int {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	o := doctor.Options{Catalog: targets.Catalog(), Out: os.Stdout, Timeout: 10 * time.Second}
	var vars multi
	fs.StringVar(&o.Target, "target", "", "target manifest (default: the embedded refmux.yaml)")
	fs.StringVar(&o.Repo, "repo", "", "the launcher's source tree, for the manifest's {repo} (default: the root of the git repository you are in, else this folder)")
	fs.Var(&vars, "var", "NAME=VALUE for the manifest (repeatable)")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	o.Vars = vars
	var err error
	if o.Repo, err = repoDir(o.Repo); err != nil {
		fmt.Fprintln(os.Stderr, "classproof doctor:", err)
		return exitUsage
	}
	if o.KitDir, err = build.KitDir(); err != nil {
		fmt.Fprintln(os.Stderr, "classproof:", err)
		return exitUsage
	}
	r, err := doctor.Run(context.Background(), o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "classproof doctor:", err)
		return exitUsage
	}
	if !r.Drivable {
		return exitFailed
	}
	return exitPassed
}

func requiredCmd(args []string) int {
	fs := flag.NewFlagSet("required-specs", flag.ContinueOnError)
	path := fs.String("file", "ci/required-specs.yaml", "the required-spec list")
	check := fs.Bool("check", false, "do not write: fail if the file and the suites disagree")
	rehearsal := fs.String("rehearsal", "", "a lane's dry-run report folder (ci/lane LANE --dry-run): fail unless it selected exactly the lane's listed specs")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if *rehearsal != "" {
		req, err := gate.LoadRequired(*path)
		if err == nil {
			var line string
			if line, err = gate.Rehearse(*rehearsal, req); err == nil {
				fmt.Println("classproof required-specs:", line)
				return exitPassed
			}
		}
		fmt.Fprintln(os.Stderr, "classproof required-specs:", err)
		return exitFailed
	}
	dir, err := build.KitDir()
	if err != nil {
		fmt.Fprintln(os.Stderr, "classproof:", err)
		return exitUsage
	}
	if err := gate.WriteOrCheck(context.Background(), targets.Catalog(), dir, *path, *check); err != nil {
		fmt.Fprintln(os.Stderr, "classproof required-specs:", err)
		return exitFailed
	}
	if *check {
		fmt.Printf("classproof required-specs: %s agrees with the suites\n", *path)
	} else {
		fmt.Printf("classproof required-specs: wrote %s\n", *path)
	}
	return exitPassed
}

func benchCmd(args []string) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	o := bench.Defaults()
	o.Catalog = targets.Catalog()
	var vars, classes multi
	fs.StringVar(&o.Target, "target", "", "manifest (default: the embedded refmux.yaml)")
	fs.Var(&vars, "var", "NAME=VALUE for the manifest (repeatable)")
	fs.IntVar(&o.N, "n", o.N, "CPU-busy load processes")
	fs.IntVar(&o.Runs, "runs", o.Runs, "runs per class, interleaved")
	fs.DurationVar(&o.Duration, "duration", o.Duration, "probe time per run")
	fs.IntVar(&o.Hz, "hz", o.Hz, "probe frame rate")
	fs.Float64Var(&o.FrameWorkMS, "frame-work-ms", o.FrameWorkMS, "probe work per frame, in ms of this machine's idle CPU")
	fs.Float64Var(&o.JobMS, "job-ms", o.JobMS, "the cost job's size, in ms of this machine's idle CPU")
	fs.Var(&classes, "class", "a class to run (repeatable; default: all on this OS; the first must be default)")
	fs.StringVar(&o.OutDir, "out", "out/bench", "folder for bench.md, bench.json and lateness.svg")
	ioBench := fs.Bool("io", false, "the I/O bench instead: a foreground's small direct reads and fdatasync'd writes while --n writers (default 4) load the disk at each class; as root on Linux on a loop-backed ext4 with bfq, made and removed under --out")
	noLoop := fs.Bool("no-loop", false, "with --io: run on --out's own filesystem, not on a loop device")
	ratio := fs.Float64("expect-background-ratio", 0, "fail unless default-class load's p95 lateness is at least this many times background's")
	smoke := fs.Bool("smoke", false, "a few seconds: 2 loads, 1 run of 300 ms, default and background; checks the bench works, proves nothing")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	o.Vars, o.Classes = vars, classes
	if *ioBench {
		return ioBenchCmd(fs, o, *noLoop, *smoke, args)
	}
	if *smoke {
		o.N, o.Runs, o.Duration, o.JobMS = 2, 1, 300*time.Millisecond, 50
		if len(o.Classes) == 0 {
			o.Classes = []string{"default", "background"}
		}
	}
	var err error
	if o.KitDir, err = build.KitDir(); err != nil {
		fmt.Fprintln(os.Stderr, "classproof:", err)
		return exitUsage
	}
	o.Log = os.Stderr
	// An interrupt stops the bench between steps and kills every load process on the way out.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r, err := bench.Bench(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "classproof bench:", err)
		return exitFailed
	}
	r.Command = "classproof bench " + strings.Join(args, " ")
	if err := r.Write(o.OutDir); err != nil {
		fmt.Fprintln(os.Stderr, "classproof bench:", err)
		return exitFailed
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
func ioBenchCmd(fs *flag.FlagSet, cpu bench.Options, noLoop, smoke bool, args []string) int {
	o := bench.IODefaults()
	o.Catalog = cpu.Catalog
	o.Target, o.Vars, o.OutDir, o.NoLoop, o.Log = cpu.Target, cpu.Vars, cpu.OutDir, noLoop, os.Stderr
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
	var err error
	if o.KitDir, err = build.KitDir(); err != nil {
		fmt.Fprintln(os.Stderr, "classproof:", err)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r, err := bench.IOBench(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "classproof bench --io:", err)
		return exitFailed
	}
	r.Command = "classproof bench " + strings.Join(args, " ")
	if err := r.Write(o.OutDir); err != nil {
		fmt.Fprintln(os.Stderr, "classproof bench --io:", err)
		return exitFailed
	}
	fmt.Printf("filesystem: %s\nscheduler: %s\n\n%s", r.Filesystem, r.SchedulerText(), r.Table())
	fmt.Printf("wrote %s, %s\n", filepath.Join(o.OutDir, "io.md"), filepath.Join(o.OutDir, "io.json"))
	return exitPassed
}

// repoDir is --repo made absolute, or by default the root of the git repository the command was
// started in (else that folder): a launcher's team runs the kit from its own repository.
func repoDir(flag string) (string, error) {
	if flag != "" {
		return filepath.Abs(flag)
	}
	if out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output(); err == nil {
		return strings.TrimSpace(string(out)), nil
	}
	return os.Getwd()
}

// needsGo wraps a command that builds with Go: with no go on PATH it says so plainly and exits 2
// (a release archive runs run, redgreen, gate and doctor without one).
func needsGo(cmd, why string, run func([]string) int) func([]string) int {
	return func(args []string) int {
		if _, err := exec.LookPath("go"); err != nil {
			fmt.Fprintf(os.Stderr, "classproof %s needs Go (%s), and there is no go on PATH. run, redgreen, gate and doctor work without it from the release archive.\n", cmd, why)
			return exitUsage
		}
		return run(args)
	}
}
