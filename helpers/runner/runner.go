// Package runner runs the suites for one lane through the ginkgo CLI (the version go.mod pins),
// with the lane's label filter, reports in one folder, a run-wide pid ledger, and a sweep of that
// ledger afterwards, so that even a run killed halfway leaves no launcher process behind.
//
// CLI side: it must not import the Ginkgo DSL, Gomega, helpers/kit or fixtures/ (ci/layers.rules).
package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/classproof/classproof/helpers/lane"
	"github.com/classproof/classproof/helpers/proc"
	"github.com/classproof/classproof/helpers/report"
	"github.com/classproof/classproof/helpers/target"
)

// Options select what to run.
type Options struct {
	KitDir      string   // the classproof module root (where suites/ is)
	Target      string   // manifest path; empty: the embedded refmux.yaml
	Vars        []string // NAME=VALUE overrides of the manifest's vars
	Lane        string   // empty: the lane of this OS and the target
	Suites      []string // e.g. ./suites/cpuclass; empty: every suite
	OutDir      string
	Procs       int    // Ginkgo parallel processes; 0 or 1: serial
	LabelFilter string // ANDed with the lane's filter
	Focus       string
	Timeout     time.Duration
	Log         io.Writer
	Repo        string // {repo} for the manifest: the launcher's source tree
	BinDir      string // a folder with the launcher already built: the suites skip the build step
	// DryRun lists what the lane would run without running anything (Ginkgo --dry-run), on any
	// OS: it is how the required-spec list is made for every lane from one machine.
	DryRun bool
	// ForeignLane runs a lane on an OS it is not for. Its specs for the lane's platform then skip
	// at run time, and run.json says forced; only the gate's own tests use it, to make the report
	// a misconfigured lane would make.
	ForeignLane bool
}

// Meta is run.json, written beside report.json: what the gate needs to know about the run.
type Meta struct {
	Lane     string        `json:"lane"`
	Target   string        `json:"target"`
	Filter   string        `json:"filter"`
	GOOS     string        `json:"goos"`
	GOARCH   string        `json:"goarch"`
	Procs    int           `json:"procs"`
	DryRun   bool          `json:"dry_run,omitempty"`
	Forced   bool          `json:"forced,omitempty"`
	Leaks    []string      `json:"leaks,omitempty"`
	Passed   bool          `json:"passed"`
	Duration time.Duration `json:"duration_ns"`
}

// Result is what a run left.
type Result struct {
	Target      *target.Manifest
	Lane        string
	Filter      string
	ReportPath  string
	JUnitPath   string
	Run         *report.Run
	GinkgoErr   error
	Leaks       []string
	Interrupted bool
	Duration    time.Duration
	// Problems are reasons the run fails beyond Ginkgo's own verdict.
	Problems []string
}

// Passed is true when Ginkgo passed, nothing leaked and the lane ran its platform's specs.
func (r *Result) Passed() bool {
	return r.GinkgoErr == nil && len(r.Leaks) == 0 && !r.Interrupted && len(r.Problems) == 0
}

// LoadTarget reads the manifest the options name (or the embedded default) with its vars set.
// Errors name the manifest, so the CLI reports them once before anything runs.
func LoadTarget(path string, vars []string) (*target.Manifest, error) {
	m, err := target.LoadSpec(path, target.Embedded.FS, target.Embedded.Default)
	if err != nil {
		return nil, err
	}
	return m, m.SetVars(vars)
}

// LaneFor is the lane of this OS for a target, or an error if the asked-for lane cannot run here:
// a darwin lane on Linux would filter or skip every darwin spec and pass with nothing proved.
func LaneFor(m *target.Manifest, asked string) (string, error) {
	meaning, err := m.Meaning(runtime.GOOS)
	if err != nil {
		return "", err
	}
	p, err := lane.Current(meaning)
	if err != nil {
		return "", err
	}
	if asked != "" && asked != p.Label {
		return "", fmt.Errorf("lane %s cannot run here: this is %s/%s and target %s's background here is %q, which is lane %s",
			asked, runtime.GOOS, runtime.GOARCH, m.Name, meaning, p.Label)
	}
	return p.Label, nil
}

// Run runs the suites and sweeps the ledger. An error means the run could not be made; a run
// whose specs failed returns a Result with GinkgoErr set.
func Run(ctx context.Context, o Options) (*Result, error) {
	start := time.Now()
	m, ln, filter, err := plan(&o)
	if err != nil {
		return nil, err
	}
	out, err := outFolder(o.OutDir)
	if err != nil {
		return nil, err
	}
	res := &Result{Lane: ln, Filter: filter, Target: m, ReportPath: filepath.Join(out, "report.json"), JUnitPath: filepath.Join(out, "junit.xml")}
	ledger := filepath.Join(out, "pids.ledger")
	// Nothing of an earlier run in this folder may be read as this one's.
	for _, stale := range []string{res.ReportPath, res.JUnitPath, filepath.Join(out, "run.json"), ledger} {
		if err := os.Remove(stale); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("removing %s, left by an earlier run: %w", stale, err)
		}
	}
	// One preflight before any suite compiles: the launcher is built once for every suite, and a
	// missing or unusable binary is one error naming the manifest, the field and the value.
	if !o.DryRun {
		bin, cleanBin, err := Preflight(context.Background(), m, o.KitDir, o.Repo, o.BinDir, o.Log)
		defer cleanBin()
		if err != nil {
			return nil, err
		}
		o.BinDir = bin
	}
	// Each run compiles its suites into a folder of its own: ginkgo would put them in the suites'
	// folders, where two runs at once (a lane and a proof, parallel go tests) delete each other's.
	c, cleanup, err := compileSuites(o.KitDir, o.Suites, !o.DryRun)
	defer cleanup()
	if err != nil {
		return nil, err
	}
	cmd, err := ginkgoCommand(o, filter, out, ledger, c)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(o.Log, "classproof: lane %s, target %s (%s), label filter %q\n", ln, m.Name, m.Source, filter)
	if res.GinkgoErr, res.Interrupted, err = supervise(ctx, cmd, o.Log); err != nil {
		return nil, err
	}
	if res.Leaks, err = proc.Sweep(ledger); err != nil {
		return res, fmt.Errorf("sweeping the pid ledger %s: %w", ledger, err)
	}
	res.Duration = time.Since(start)
	if res.Run, err = report.Load(res.ReportPath, filter); err != nil && !errors.Is(err, os.ErrNotExist) {
		return res, err
	}
	if res.Run != nil {
		res.Run.Reasons = m.LeftOut()
	}
	res.Problems = laneProblems(o, res.Run, ln, filter)
	meta := Meta{Lane: ln, Target: m.Source, Filter: filter, GOOS: runtime.GOOS, GOARCH: runtime.GOARCH,
		Procs: o.Procs, DryRun: o.DryRun, Forced: o.ForeignLane, Leaks: res.Leaks, Passed: res.Passed(), Duration: res.Duration}
	b, _ := json.MarshalIndent(meta, "", "  ")
	return res, proc.WriteFile(filepath.Join(out, "run.json"), b, 0o644)
}

// plan loads the target and decides the lane and the label filter: the lane's platform labels,
// then what the target lacks or does not declare (left out before the run, with its reason),
// then the caller's own filter.
func plan(o *Options) (*target.Manifest, string, string, error) {
	if o.Target == "" && o.Lane != "" && target.Embedded.ForLane != nil {
		o.Target = target.Embedded.ForLane(o.Lane)
	}
	if o.Target != "" && !strings.HasPrefix(o.Target, target.EmbeddedPrefix) {
		// Relative to where the command started; absolute from here on, for the suites (which
		// run in their own folders) and for reports read elsewhere.
		abs, err := filepath.Abs(o.Target)
		if err != nil {
			return nil, "", "", err
		}
		o.Target = abs
	}
	m, err := LoadTarget(o.Target, o.Vars)
	if err != nil {
		return nil, "", "", err
	}
	ln, err := LaneFor(m, o.Lane)
	if err != nil && (o.DryRun || o.ForeignLane) && o.Lane != "" {
		ln, err = o.Lane, nil
	}
	if err != nil {
		return nil, "", "", err
	}
	filter, _ := lane.Filter(ln)
	if lo := m.LeftOutFilter(); lo != "" {
		filter = "(" + filter + ") && " + lo
	}
	if o.LabelFilter != "" {
		filter = "(" + filter + ") && (" + o.LabelFilter + ")"
	}
	return m, ln, filter, nil
}

// outFolder makes the --out folder and checks it is ours alone.
func outFolder(dir string) (string, error) {
	out, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", err
	}
	if err := proc.Private(out, true); err != nil {
		return "", fmt.Errorf("--out %s: %w; refusing to write reports and the pid ledger there (use a folder of your own)", dir, err)
	}
	return out, nil
}

// ginkgoCommand is the ginkgo CLI at the version go.mod pins, over the compiled suites, with the
// run's environment for the suites.
func ginkgoCommand(o Options, filter, out, ledger string, c compiled) (*exec.Cmd, error) {
	args := []string{"run", "github.com/onsi/ginkgo/v2/ginkgo",
		"--label-filter", filter,
		// Not --fail-on-empty: a suite may rightly select nothing for a target that lacks what it
		// needs (compat without a spawn-spec interface); an empty run as a whole fails instead.
		"--fail-on-pending", "--randomize-all", "--keep-going",
		"--poll-progress-after", "60s", "--poll-progress-interval", "30s",
		"--json-report", "report.json", "--junit-report", "junit.xml", "--output-dir", out,
	}
	if o.Timeout > 0 {
		args = append(args, "--timeout", o.Timeout.String())
	}
	// Ginkgo dry-runs only in series (it refuses --procs with --dry-run), so a lane's own command
	// line, --procs and all, still rehearses.
	if o.Procs > 1 && !o.DryRun {
		args = append(args, "--procs", fmt.Sprint(o.Procs))
	}
	if o.Focus != "" {
		args = append(args, "--focus", o.Focus)
	}
	if !IsTerminal(o.Log) {
		args = append(args, "--no-color")
	}
	if o.DryRun {
		args = append(args, "--dry-run")
	}
	cmd := exec.Command("go", append(args, c.suites...)...)
	cmd.Dir = o.KitDir
	cmd.Stdout, cmd.Stderr = o.Log, o.Log
	spec := o.Target // absolute since plan
	cmd.Env = append(os.Environ(), proc.LedgerEnv+"="+ledger, target.VarsEnv+"="+target.EncodeVars(o.Vars),
		target.TargetEnv+"="+spec, target.RepoEnv+"="+o.Repo, target.BinEnv+"="+o.BinDir,
		proc.SupervisorEnv+"="+proc.Supervisor(), target.KitEnv+"="+o.KitDir, target.HarnessEnv+"="+c.harness, "GOWORK=off")
	// Its own group, so that an interrupt reaches the test processes too: the ginkgo CLI does
	// not forward signals to them, and their DeferCleanups are what kill the launchers.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd, nil
}

// supervise runs the ginkgo command to its end, forwarding an interrupt (SIGINT, then SIGKILL on
// a second one) or the context's end to its whole process group.
func supervise(ctx context.Context, cmd *exec.Cmd, log io.Writer) (ginkgoErr error, interrupted bool, err error) {
	if err := cmd.Start(); err != nil {
		return nil, false, err
	}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	interrupts := 0
	cancelled := ctx.Done()
	for {
		select {
		case err := <-done:
			return err, interrupted, nil
		case <-sigs:
			interrupted = true
			interrupts++
			sig := syscall.SIGINT
			if interrupts > 1 {
				sig = syscall.SIGKILL
			}
			fmt.Fprintf(log, "\nclassproof: interrupted: sending %v to the run (again to kill it)\n", sig)
			_ = syscall.Kill(-cmd.Process.Pid, sig)
		case <-cancelled:
			interrupted = true
			cancelled = nil // once: the run's own cleanups take it from here
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
		}
	}
}

// laneProblems are the reasons a run fails beyond Ginkgo's own verdict: it selected nothing, or,
// as a lane, ran none of its platform's specs. A narrowed run (a suite, a focus, a label filter,
// while iterating, without --lane) reports what it ran and is not held to the lane rule.
func laneProblems(o Options, run *report.Run, ln, filter string) []string {
	if run == nil || o.DryRun {
		return nil
	}
	narrowed := (len(o.Suites) > 0 || o.Focus != "" || o.LabelFilter != "") && o.Lane == ""
	switch {
	case run.Count().Ran == 0:
		return []string{"the run selected no spec: its filter " + strconv.Quote(filter) + " left every spec out"}
	case !narrowed && !platformRan(run, ln):
		// A darwin lane that filtered or skipped its darwin specs proves nothing about macOS.
		return []string{fmt.Sprintf("lane %s ran none of its %s-labelled specs to a pass or a failure", ln, ln)}
	}
	return nil
}

// IsTerminal says whether w is a terminal (colour, progress lines) rather than a log or a pipe.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func platformRan(r *report.Run, label string) bool {
	for _, s := range r.Specs {
		if o := s.Outcome(); o != report.Passed && o != report.Failed {
			continue
		}
		for _, l := range s.Labels {
			if l == label {
				return true
			}
		}
	}
	return false
}

// compiled is what a run builds once for all its suites.
type compiled struct {
	suites  []string // each suite's test binary
	harness string   // the fixture harness; empty for a dry run
}

// compileSuites builds each suite's test binary with go test -c, and the fixture harness, into a
// fresh folder in the user's cache: never into the kit's folder, which is read-only when the kit
// runs from the module cache, and a folder per run, because ginkgo would put them in the suites'
// folders, where two runs at once (a lane and a proof, parallel go tests) delete each other's.
func compileSuites(kitDir string, suites []string, harness bool) (compiled, func(), error) {
	var c compiled
	nothing := func() {}
	if len(suites) == 0 {
		found, err := filepath.Glob(filepath.Join(kitDir, "suites", "*", "*_suite_test.go"))
		if err != nil {
			return c, nothing, err
		}
		for _, f := range found {
			rel, _ := filepath.Rel(kitDir, filepath.Dir(f))
			suites = append(suites, "./"+rel)
		}
		sort.Strings(suites)
	}
	cache, err := target.CacheDir()
	if err != nil {
		return c, nothing, err
	}
	if err := proc.Private(cache, true); err != nil {
		return c, nothing, fmt.Errorf("the cache folder %s: %w; refusing to run test binaries from it", cache, err)
	}
	sweepStaleSuites(cache)
	dir, err := os.MkdirTemp(cache, ".suites-")
	if err != nil {
		return c, nothing, err
	}
	// Whose folder this is: a later run removes it once this process is gone (killed runs leave
	// their compiled suites behind otherwise).
	if err := os.WriteFile(filepath.Join(dir, "owner"), []byte(proc.Supervisor()), 0o644); err != nil {
		return c, nothing, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	for _, s := range suites {
		// A folder per suite: ginkgo names each suite's partial reports after its folder.
		bin := filepath.Join(dir, filepath.Base(s), filepath.Base(s)+".test")
		cmd := exec.Command("go", "test", "-c", "-o", bin, s)
		cmd.Dir = kitDir
		cmd.Env = append(os.Environ(), "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			return c, cleanup, fmt.Errorf("compiling suite %s: %v\n%s", s, err, out)
		}
		c.suites = append(c.suites, bin)
	}
	if harness {
		c.harness = filepath.Join(dir, "harness")
		if err := target.GoBuild(context.Background(), kitDir, target.HarnessPackage, c.harness); err != nil {
			return c, cleanup, err
		}
	}
	return c, cleanup, nil
}

// PreflightError is a target that cannot be driven at all: reported once, before any suite
// compiles (the CLI exits 2).
type PreflightError struct{ Err error }

func (e *PreflightError) Error() string { return e.Err.Error() }
func (e *PreflightError) Unwrap() error { return e.Err }

// Preflight builds the target once, where its manifest has a build step and no bin folder was
// handed in, and checks that every command's binary exists and may be executed. It returns the
// bin folder the suites use and how to remove it if Preflight made it.
func Preflight(ctx context.Context, m *target.Manifest, kitDir, repo, binDir string, log io.Writer) (string, func(), error) {
	cleanup := func() {}
	build := binDir == "" && m.Build != nil
	if binDir == "" {
		dir, err := os.MkdirTemp("", "classproof-bin")
		if err != nil {
			return "", cleanup, err
		}
		binDir, cleanup = dir, func() { os.RemoveAll(dir) }
	}
	d, err := target.New(m, target.Paths{Kit: kitDir, Bin: binDir, Repo: repo}, "")
	switch {
	case err != nil:
	case build:
		fmt.Fprintf(log, "classproof: building target %s: %s\n", m.Name, strings.Join(m.Build.Run, " "))
		err = d.Build(ctx, io.Discard) // it checks the binaries it made
	default:
		err = d.CheckBinaries()
	}
	if err != nil {
		return binDir, cleanup, &PreflightError{err}
	}
	return binDir, cleanup, nil
}

// sweepStaleSuites removes the compile folders of runs that are gone: their owner (pid and start
// time) no longer exists, or, for a folder with no owner file, it is over an hour old.
func sweepStaleSuites(outDir string) {
	dirs, _ := filepath.Glob(filepath.Join(outDir, ".suites-*"))
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "owner"))
		if err != nil {
			if fi, serr := os.Stat(d); serr == nil && time.Since(fi.ModTime()) > time.Hour {
				os.RemoveAll(d)
			}
			continue
		}
		if !proc.Exists(string(b)) {
			os.RemoveAll(d)
		}
	}
}
