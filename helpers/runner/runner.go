// Package runner runs the suites for one lane through the ginkgo CLI (the version go.mod pins),
// with the lane's label filter, reports in one folder, a run-wide pid ledger, and a sweep of that
// ledger afterwards, so that even a run killed halfway leaves no launcher process behind.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/classproof/classproof/fixtures/targets"
	"github.com/classproof/classproof/helpers/kit"
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
}

// Result is what a run left.
type Result struct {
	Lane        string
	Filter      string
	ReportPath  string
	JUnitPath   string
	Run         *report.Run
	GinkgoErr   error
	Leaks       []string
	Interrupted bool
	Duration    time.Duration
}

// Passed is true when Ginkgo passed and nothing leaked.
func (r *Result) Passed() bool { return r.GinkgoErr == nil && len(r.Leaks) == 0 && !r.Interrupted }

// LoadTarget reads the manifest the options name (or the embedded default) with its vars set.
// Errors name the manifest, so the CLI reports them once before anything runs.
func LoadTarget(path string, vars []string) (*target.Manifest, error) {
	m, err := target.LoadSpec(path, targets.FS, targets.Default)
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
	m, err := LoadTarget(o.Target, o.Vars)
	if err != nil {
		return nil, err
	}
	ln, err := LaneFor(m, o.Lane)
	if err != nil {
		return nil, err
	}
	filter, _ := lane.Filter(ln)
	if o.LabelFilter != "" {
		filter = "(" + filter + ") && (" + o.LabelFilter + ")"
	}
	out, err := filepath.Abs(o.OutDir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	res := &Result{Lane: ln, Filter: filter, ReportPath: filepath.Join(out, "report.json"), JUnitPath: filepath.Join(out, "junit.xml")}
	os.Remove(res.ReportPath)
	ledger := filepath.Join(out, "pids.ledger")
	os.Remove(ledger)

	args := []string{"run", "github.com/onsi/ginkgo/v2/ginkgo",
		"--label-filter", filter,
		"--fail-on-empty", "--fail-on-pending", "--randomize-all",
		"--poll-progress-after", "60s", "--poll-progress-interval", "30s",
		"--json-report", "report.json", "--junit-report", "junit.xml", "--output-dir", out,
	}
	if o.Timeout > 0 {
		args = append(args, "--timeout", o.Timeout.String())
	}
	if o.Procs > 1 {
		args = append(args, "--procs", fmt.Sprint(o.Procs))
	}
	if o.Focus != "" {
		args = append(args, "--focus", o.Focus)
	}
	if !isTerminal(o.Log) {
		args = append(args, "--no-color")
	}
	suites := o.Suites
	if len(suites) == 0 {
		suites = []string{"-r", "./suites"}
	}
	args = append(args, suites...)

	cmd := exec.Command("go", args...)
	cmd.Dir = o.KitDir
	cmd.Stdout, cmd.Stderr = o.Log, o.Log
	cmd.Env = append(os.Environ(), proc.LedgerEnv+"="+ledger, kit.VarsEnv+"="+strings.Join(o.Vars, " "))
	spec := o.Target
	if spec != "" && !strings.HasPrefix(spec, target.EmbeddedPrefix) {
		// The suites run in their own folders: hand them an absolute path.
		if spec, err = filepath.Abs(spec); err != nil {
			return nil, err
		}
	}
	cmd.Env = append(cmd.Env, kit.TargetEnv+"="+spec, kit.RepoEnv+"="+o.Repo, kit.BinEnv+"="+o.BinDir)
	// Its own group, so that an interrupt reaches the test processes too: the ginkgo CLI does
	// not forward signals to them, and their DeferCleanups are what kill the launchers.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	fmt.Fprintf(o.Log, "classproof: lane %s, target %s (%s), label filter %q\n", ln, m.Name, m.Source, filter)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	interrupts := 0
wait:
	for {
		select {
		case err := <-done:
			res.GinkgoErr = err
			break wait
		case <-sigs:
			res.Interrupted = true
			interrupts++
			sig := syscall.SIGINT
			if interrupts > 1 {
				sig = syscall.SIGKILL
			}
			fmt.Fprintf(o.Log, "\nclassproof: interrupted: sending %v to the run (again to kill it)\n", sig)
			_ = syscall.Kill(-cmd.Process.Pid, sig)
		case <-ctx.Done():
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
		}
	}
	res.Leaks, err = proc.Sweep(ledger)
	if err != nil {
		return res, fmt.Errorf("sweeping the pid ledger %s: %w", ledger, err)
	}
	res.Duration = time.Since(start)
	if res.Run, err = report.Load(res.ReportPath, filter); err != nil && !errors.Is(err, os.ErrNotExist) {
		return res, err
	}
	return res, nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
