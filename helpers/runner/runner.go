// Package runner runs the suites for one lane through the ginkgo CLI (the version go.mod pins),
// with the lane's label filter, reports in one folder, a run-wide pid ledger, and a sweep of that
// ledger afterwards, so that even a run killed halfway leaves no launcher process behind.
//
// CLI side: it must not import the Ginkgo DSL, Gomega, helpers/kit or fixtures/ (ci/layers.rules).
package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/classproof/classproof/helpers/contract"
	"github.com/classproof/classproof/helpers/files"
	"github.com/classproof/classproof/helpers/lane"
	"github.com/classproof/classproof/helpers/proc"
	"github.com/classproof/classproof/helpers/report"
	"github.com/classproof/classproof/helpers/target"
)

// Options select what to run.
type Options struct {
	// Catalog is the kit's embedded manifests (embedded:NAME, the default, each lane's own).
	Catalog     target.Catalog
	KitDir      string   // the classproof module root (where suites/ is)
	Target      string   // manifest path; empty: the embedded refmux.yaml
	Vars        []string // NAME=VALUE overrides of the manifest's vars
	Lane        string   // empty: the lane of this OS and the target
	Suites      []string // e.g. ./suites/cpuclass; empty: every suite
	OutDir      string
	Procs       int    // Ginkgo parallel processes; 0 or 1: serial
	LabelFilter string // ANDed with the lane's filter
	Focus       string
	Timeout     time.Duration // the whole run: build, compile, suites (Ginkgo gets what is left)
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
	Refused     []string // see Meta.Refused
	Interrupted bool
	Duration    time.Duration
	// Problems are reasons the run fails beyond Ginkgo's own verdict.
	Problems []string
	Phases   map[string]float64 // see Meta.Phases
}

// Passed is true when Ginkgo passed, nothing leaked and the lane ran its platform's specs.
func (r *Result) Passed() bool {
	return r.GinkgoErr == nil && len(r.Leaks) == 0 && len(r.Refused) == 0 && !r.Interrupted && len(r.Problems) == 0
}

// LoadTarget reads the manifest path names (or the catalog's default) with its vars set. Errors
// name the manifest, so the CLI reports them once before anything runs.
func LoadTarget(catalog target.Catalog, path string, vars []string) (*target.Manifest, error) {
	m, err := target.LoadSpec(path, catalog.FS, catalog.Default)
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
	out, err := OutFolder(o.OutDir)
	if err != nil {
		return nil, err
	}
	res := &Result{Lane: ln, Filter: filter, Target: m, ReportPath: filepath.Join(out, "report.json"), JUnitPath: filepath.Join(out, "junit.xml"),
		Phases: map[string]float64{}}
	phase := func(name string, since time.Time) { res.Phases[name] = float64(time.Since(since).Microseconds()) / 1e3 }
	ledger := filepath.Join(out, "pids.ledger")
	// Nothing of an earlier run in this folder may be read as this one's.
	for _, stale := range []string{res.ReportPath, res.JUnitPath, filepath.Join(out, "run.json"), ledger} {
		if err := os.Remove(stale); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("removing %s, left by an earlier run: %w", stale, err)
		}
	}
	// Every phase answers an interrupt and the run's --timeout: before Ginkgo starts (it has its
	// own signal handling, in supervise), SIGINT and SIGTERM cancel the build and the compile,
	// which take their process groups down; what is left of the timeout then goes to Ginkgo.
	prep, stopSignals := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stopSignals()
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		prep, cancel = context.WithDeadline(prep, start.Add(o.Timeout))
		defer cancel()
	}
	// One preflight before any suite compiles: the launcher is built once for every suite, and a
	// missing or unusable binary is one error naming the manifest, the field and the value.
	t := time.Now()
	if !o.DryRun {
		bin, cleanBin, err := Preflight(prep, m, o.KitDir, o.Repo, o.BinDir, o.Log)
		defer cleanBin()
		if stopped := interruptedBefore(prep, res, "the launcher's build"); stopped {
			return res, nil
		}
		if err != nil {
			return nil, err
		}
		o.BinDir = bin
	}
	phase("preflight", t)
	t = time.Now()
	// The suites, the harness and the ginkgo CLI: built once per kit build key, shared.
	c, err := compileSuites(prep, o.KitDir, o.Suites, !o.DryRun)
	if stopped := interruptedBefore(prep, res, "compiling the suites"); stopped {
		return res, nil
	}
	if err != nil {
		return nil, err
	}
	phase("compile", t)
	stopSignals() // from here supervise forwards them to the test processes
	if o.Timeout > 0 {
		o.Timeout = max(time.Until(start.Add(o.Timeout)), time.Second)
	}
	// The run's token: the suites hand it to the launcher and the harness, and the sweep signals
	// only what carries it or descends from what does (proc.Tied).
	token := proc.NewRunToken()
	cmd, err := ginkgoCommand(o, filter, out, ledger, token, c)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(o.Log, "classproof: lane %s, target %s (%s), label filter %q\n", ln, m.Name, m.Source, filter)
	t = time.Now()
	if res.GinkgoErr, res.Interrupted, err = supervise(ctx, cmd, o.Log); err != nil {
		return nil, err
	}
	phase("ginkgo", t)
	t = time.Now()
	res.Leaks, res.Refused, err = proc.Sweep(ledger, token)
	phase("sweep", t)
	if err != nil {
		return res, fmt.Errorf("sweeping the pid ledger %s: %w", ledger, err)
	}
	res.Duration = time.Since(start)
	if res.Run, err = report.Load(res.ReportPath, filter); err != nil && !errors.Is(err, os.ErrNotExist) {
		return res, err
	}
	if res.Run != nil {
		p, _ := lane.ByLabel(ln)
		res.Run.Reasons, res.Run.Lane = m.LeftOut(p.Meaning), ln
	}
	res.Problems = laneProblems(o, res.Run, ln, filter)
	meta := report.Meta{Lane: ln, Target: m.Source, Filter: filter, GOOS: runtime.GOOS, GOARCH: runtime.GOARCH,
		Procs: o.Procs, DryRun: o.DryRun, Forced: o.ForeignLane, Leaks: res.Leaks, Refused: res.Refused, Passed: res.Passed(), Duration: res.Duration,
		Phases: res.Phases}
	b, _ := json.MarshalIndent(meta, "", "  ")
	return res, files.WriteFile(filepath.Join(out, "run.json"), b, 0o644)
}

// plan loads the target and decides the lane and the label filter: the lane's platform labels,
// then what the target lacks or does not declare (left out before the run, with its reason),
// then the caller's own filter.
func plan(o *Options) (*target.Manifest, string, string, error) {
	if o.Target == "" && o.Lane != "" && o.Catalog.ForLane != nil {
		o.Target = o.Catalog.ForLane(o.Lane)
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
	m, err := LoadTarget(o.Catalog, o.Target, o.Vars)
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
	p, _ := lane.ByLabel(ln)
	if lo := m.LeftOutFilter(p.Meaning); lo != "" {
		filter = "(" + filter + ") && " + lo
	}
	if o.LabelFilter != "" {
		filter = "(" + filter + ") && (" + o.LabelFilter + ")"
	}
	return m, ln, filter, nil
}

// outFolder makes the --out folder and checks it is ours alone.
// OutFolder makes dir (absolute) and checks it is a folder of this user's alone on a trusted path:
// reports, the ledger and a bench's files are written there.
func OutFolder(dir string) (string, error) {
	out, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", err
	}
	if err := files.Private(out, true); err != nil {
		return "", fmt.Errorf("--out %s: %w; refusing to write reports and the pid ledger there (use a folder of your own)", dir, err)
	}
	if err := files.TrustedPath(out); err != nil {
		return "", fmt.Errorf("--out %s: %w; refusing to write reports and the pid ledger there (use a folder of your own)", dir, err)
	}
	return out, nil
}

// ginkgoCommand is the ginkgo CLI at the version go.mod pins, over the compiled suites, with the
// run's environment for the suites.
func ginkgoCommand(o Options, filter, out, ledger, token string, c compiled) (*exec.Cmd, error) {
	args := []string{
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
	cmd := exec.Command(c.ginkgo, append(args, c.suites...)...)
	cmd.Dir = o.KitDir
	cmd.Stdout, cmd.Stderr = o.Log, o.Log
	spec := o.Target // absolute since plan
	run := contract.Run{Target: spec, Vars: o.Vars, Bin: o.BinDir, Repo: o.Repo, Kit: o.KitDir, Harness: c.harness,
		Ledger: ledger, Supervisor: proc.Supervisor(), Token: token, Scale: contract.Current().Scale}
	cmd.Env = append(run.Over(os.Environ()), "GOWORK=off")
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
	// One Ctrl-C reaches us twice when the caller's context listens for it too (the CLI's
	// commands do): the first of the two sends SIGINT, a second signal escalates to SIGKILL, and
	// a cancelled context never counts as a second one.
	signals, sentInt := 0, false
	interrupt := func() {
		interrupted = true
		if !sentInt {
			sentInt = true
			fmt.Fprintf(log, "\nclassproof: interrupted: sending %v to the run (again to kill it)\n", syscall.SIGINT)
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
		}
	}
	cancelled := ctx.Done()
	for {
		select {
		case err := <-done:
			return err, interrupted, nil
		case <-sigs:
			if signals++; signals > 1 {
				fmt.Fprintf(log, "\nclassproof: interrupted again: sending %v to the run\n", syscall.SIGKILL)
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				continue
			}
			interrupt()
		case <-cancelled:
			cancelled = nil // once: the run's own cleanups take it from here
			interrupt()
		}
	}
}

// interruptedBefore says whether prep ended (an interrupt, or the run's --timeout) and records it
// in res as a run that stopped during what, before any spec ran.
func interruptedBefore(prep context.Context, res *Result, what string) bool {
	if prep.Err() == nil {
		return false
	}
	why := "interrupted"
	if errors.Is(prep.Err(), context.DeadlineExceeded) {
		why = "out of time (--timeout)"
	}
	res.Interrupted = true
	res.Problems = append(res.Problems, fmt.Sprintf("%s during %s: no spec ran", why, what))
	return true
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

// ginkgoPackage is the ginkgo CLI, built at the version go.mod pins (go run each time would link
// it again).
const ginkgoPackage = "github.com/onsi/ginkgo/v2/ginkgo"

// compiled is what a run builds once for all its suites.
type compiled struct {
	suites  []string // each suite's test binary
	harness string   // the fixture harness; empty for a dry run
	ginkgo  string   // the ginkgo CLI at the version go.mod pins
}

// compileSuites gives each suite's test binary (go test -c) and the fixture harness, from a
// folder in the user's cache keyed by everything they are built from: the kit's files and the Go
// toolchain's settings. Two lanes, a kill matrix's every variant and the next run share one build
// (the binaries do not depend on the target: the manifest reaches them through the environment).
// Never the kit's own folder, which is read-only in the module cache; never the suites' folders,
// where ginkgo's own compile would put them and two runs at once would delete each other's.
func compileSuites(ctx context.Context, kitDir string, suites []string, harness bool) (compiled, error) {
	var c compiled
	if len(suites) == 0 {
		found, err := filepath.Glob(filepath.Join(kitDir, "suites", "*", "*_suite_test.go"))
		if err != nil {
			return c, err
		}
		for _, f := range found {
			rel, _ := filepath.Rel(kitDir, filepath.Dir(f))
			suites = append(suites, "./"+rel)
		}
		sort.Strings(suites)
	}
	cache, err := target.CacheDir()
	if err != nil {
		return c, err
	}
	if err := files.Private(cache, true); err != nil {
		return c, fmt.Errorf("the cache folder %s: %w; refusing to run test binaries from it", cache, err)
	}
	key, err := buildKey(kitDir)
	if err != nil {
		return c, err
	}
	dir := filepath.Join(cache, "suites-"+key)
	// One builder at a time per key: a second run waits for the first's binaries instead of
	// linking the same ones again.
	unlock, err := files.Lock(dir + ".lock")
	if err != nil {
		return c, err
	}
	defer unlock()
	sweepStaleSuites(cache, dir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return c, err
	}
	now := time.Now()
	_ = os.Chtimes(dir, now, now) // last used, for the sweep
	var missing []string
	for _, s := range suites {
		// A folder per suite: ginkgo names each suite's partial reports after its folder.
		bin := filepath.Join(dir, filepath.Base(s), filepath.Base(s)+".test")
		c.suites = append(c.suites, bin)
		if _, err := os.Stat(bin); err != nil {
			missing = append(missing, s)
		}
	}
	if len(missing) > 0 {
		// One go command links them side by side; each lands under a temporary name and is
		// renamed into place, so a binary in the folder is always whole.
		tmp, err := os.MkdirTemp(cache, ".suites-")
		if err != nil {
			return c, err
		}
		defer os.RemoveAll(tmp)
		if err := os.WriteFile(filepath.Join(tmp, "owner"), []byte(proc.Supervisor()), 0o644); err != nil {
			return c, err
		}
		cmd := exec.CommandContext(ctx, "go", append([]string{"test", "-c", "-o", tmp + string(filepath.Separator)}, missing...)...)
		proc.Command(cmd)
		cmd.Dir = kitDir
		cmd.Env = append(os.Environ(), "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			return c, fmt.Errorf("compiling suites %s: %v\n%s", strings.Join(missing, " "), err, out)
		}
		for _, s := range missing {
			name := filepath.Base(s)
			if err := os.MkdirAll(filepath.Join(dir, name), 0o700); err != nil {
				return c, err
			}
			if err := os.Rename(filepath.Join(tmp, name+".test"), filepath.Join(dir, name, name+".test")); err != nil {
				return c, fmt.Errorf("compiling suite %s: %w", s, err)
			}
		}
	}
	c.ginkgo = filepath.Join(dir, "ginkgo")
	built := map[string]string{ginkgoPackage: c.ginkgo}
	if harness {
		c.harness = filepath.Join(dir, "harness")
		built[target.HarnessPackage] = c.harness
	}
	for pkg, bin := range built {
		if _, err := os.Stat(bin); err == nil {
			continue
		}
		if err := target.GoBuild(ctx, kitDir, pkg, bin+".tmp"); err != nil {
			return c, err
		}
		if err := os.Rename(bin+".tmp", bin); err != nil {
			return c, err
		}
	}
	return c, nil
}

// buildKey names a build of the suites: a hash of the Go toolchain's settings and of every file
// of the kit a build could read (its Go files, go.mod and go.sum, and the fixtures it embeds).
// Worked out once per process and kit folder: a run asks for it twice (the launcher's build and
// the suites'), a kill matrix once per cell.
func buildKey(kitDir string) (string, error) {
	keys.Lock()
	defer keys.Unlock()
	if k, ok := keys.m[kitDir]; ok {
		return k, nil
	}
	k, err := hashKit(kitDir)
	if err == nil {
		keys.m[kitDir] = k
	}
	return k, err
}

var keys = struct {
	sync.Mutex
	m map[string]string
}{m: map[string]string{}}

func hashKit(kitDir string) (string, error) {
	h := sha256.New()
	env, err := exec.Command("go", "env", "GOVERSION", "GOOS", "GOARCH", "GOFLAGS", "CGO_ENABLED", "GOEXPERIMENT", "GOAMD64", "GOARM64").Output()
	if err != nil {
		return "", fmt.Errorf("go env: %w", err)
	}
	h.Write(env)
	// The folder too: a test binary records its source paths, and a failure's location must name
	// this checkout, not another one with the same files.
	h.Write([]byte(kitDir + "\x00"))
	err = filepath.WalkDir(kitDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(kitDir, path)
		if d.IsDir() {
			switch rel {
			case ".git", "out", "bin", "docs", ".github":
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || strings.HasSuffix(rel, ".md") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %d\n", filepath.ToSlash(rel), len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("hashing the kit's files in %s: %w", kitDir, err)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
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
	var complete string // the marker of a cached build, written once it succeeded
	switch {
	case build && strings.HasPrefix(m.Source, target.EmbeddedPrefix) && (m.Build.Dir == "" || m.Build.Dir == "{kit}"):
		// A manifest the kit ships builds from the kit's files only: its build is kept in the
		// cache under their hash and the build step, and shared (two lanes, the next run).
		dir, unlock, err := cachedBin(m, kitDir)
		if err != nil {
			return "", cleanup, err
		}
		defer unlock()
		binDir, complete = dir, filepath.Join(dir, ".complete")
		if _, err := os.Stat(complete); err == nil && builtWhole(m, kitDir, repo, dir) {
			build, complete = false, ""
			now := time.Now()
			_ = os.Chtimes(dir, now, now) // last used, for the sweep
		} else {
			// Never built, cut short, or a binary gone since (a cleaner, a disk full): built
			// again, not failed on every run.
			os.RemoveAll(dir) // a build that did not finish
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return "", cleanup, err
			}
		}
	case binDir == "":
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
		if complete != "" {
			os.RemoveAll(binDir)
		}
		return binDir, cleanup, &PreflightError{err}
	}
	if complete != "" {
		return binDir, cleanup, os.WriteFile(complete, nil, 0o600)
	}
	return binDir, cleanup, nil
}

// cachedBin is the cache folder of an embedded manifest's launcher build, named by the kit's
// build key and the build step with its vars, locked for the caller.
func cachedBin(m *target.Manifest, kitDir string) (string, func(), error) {
	cache, err := target.CacheDir()
	if err != nil {
		return "", nil, err
	}
	key, err := buildKey(kitDir)
	if err != nil {
		return "", nil, err
	}
	step, _ := json.Marshal([]any{m.Build, m.Vars})
	sum := sha256.Sum256(append([]byte(key), step...))
	dir := filepath.Join(cache, "bin-"+hex.EncodeToString(sum[:])[:16])
	unlock, err := files.Lock(dir + ".lock")
	if err != nil {
		return "", nil, err
	}
	return dir, unlock, nil
}

// builtWhole says whether a cached launcher build still has every binary the manifest names.
func builtWhole(m *target.Manifest, kitDir, repo, dir string) bool {
	d, err := target.New(m, target.Paths{Kit: kitDir, Bin: dir, Repo: repo}, "")
	return err == nil && d.CheckBinaries() == nil
}

// sweepStaleSuites removes, in the cache folder, the temporary build folders of runs that are
// gone (their owner, pid and start time, no longer exists; or, with no owner file, over an hour
// old), and keyed builds other than keep unused for a day.
func sweepStaleSuites(cache, keep string) {
	dirs, _ := filepath.Glob(filepath.Join(cache, ".suites-*"))
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
	keyed, _ := filepath.Glob(filepath.Join(cache, "suites-*"))
	bins, _ := filepath.Glob(filepath.Join(cache, "bin-*"))
	keyed = append(keyed, bins...)
	for _, d := range keyed {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() && d != keep && time.Since(fi.ModTime()) > 24*time.Hour && !strings.HasSuffix(d, ".lock") {
			// Under its key's lock, and only when no one holds it: a run building or starting
			// from this folder right now keeps it.
			unlock, ok, err := files.TryLock(d + ".lock")
			if err != nil || !ok {
				continue
			}
			if fi, err := os.Stat(d); err == nil && time.Since(fi.ModTime()) > 24*time.Hour {
				os.RemoveAll(d)
			}
			unlock()
		}
	}
}
