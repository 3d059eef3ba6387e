package redgreen

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/classproof/classproof/helpers/binaries"
	"github.com/classproof/classproof/helpers/manifest"
	"github.com/classproof/classproof/helpers/runner"
)

// Side is one half of the proof.
type Side struct {
	Name       string `json:"name"`
	Ref        string `json:"ref,omitempty"`
	SHA        string `json:"sha,omitempty"`
	Target     string `json:"target"`
	BuildError string `json:"build_error,omitempty"`
	// BuildStep says what BuildError is about: binaries.StepBuild (its build step failed) or
	// binaries.StepCheck (built, but the launcher cannot be driven).
	BuildStep   string         `json:"build_step,omitempty"`
	BuildTime   time.Duration  `json:"build_ns"`
	RunTime     time.Duration  `json:"run_ns"`
	Result      *runner.Result `json:"-"`
	ReportPath  string         `json:"report,omitempty"`
	launcher    *manifest.Resolved
	bin         string
	Interrupted bool `json:"interrupted,omitempty"`
}

// buildSide runs the manifest's build step for one side, in its worktree: a launcher that does
// not build, or cannot be driven once built, is the side's verdict, not an error of the proof.
func buildSide(ctx context.Context, o Options, s *Side) error {
	if m := s.launcher.Manifest; m.Build != nil {
		progress(o, "building %s: %s", s.Name, strings.Join(m.Build.Run, " "))
	}
	t := time.Now()
	var log strings.Builder
	_, _, err := binaries.Launcher(ctx, s.launcher, binaries.Where{Dir: s.bin}, &log)
	s.BuildTime = time.Since(t)
	if launcherFailed(s, err) {
		progress(o, "%s on %s", failedStep(s), s.Name)
		return nil
	}
	return err
}

// launcherFailed records a binaries.LauncherError as the side's verdict.
func launcherFailed(s *Side, err error) bool {
	var le *binaries.LauncherError
	if !errors.As(err, &le) {
		return false
	}
	s.BuildError, s.BuildStep = le.Error(), le.Step
	return true
}

// run runs the suites for one side, Ginkgo's output going to a log file beside its report.
func run(ctx context.Context, o Options, s *Side, name string) error {
	dir := filepath.Join(o.Out, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	logf, err := os.Create(filepath.Join(dir, "ginkgo.log"))
	if err != nil {
		return err
	}
	defer logf.Close()
	progress(o, "running %s (log: %s)", name, logf.Name())
	t := time.Now()
	ro := o.RunFlags.Options(s.launcher, o.Deadline)
	ro.OutDir, ro.Log, ro.BinDir = dir, logf, s.bin
	// The proof's selection is judged on each side's whole lane (judge.go): not a run filter.
	ro.Focus, ro.LabelFilter = "", ""
	res, err := runner.Run(ctx, ro)
	s.RunTime = time.Since(t)
	if launcherFailed(s, err) {
		// The side's launcher cannot be driven (a binary missing or not executable): that is its
		// verdict, not an error of the proof.
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s run: %w", name, err)
	}
	s.Result, s.ReportPath, s.Interrupted = res, res.ReportPath, res.Interrupted
	if res.Run != nil {
		c := res.Run.Count()
		progress(o, "%s: %d passed, %d failed, %d skipped (%.1fs)", name, c.Passed, c.Failed, c.Skipped, s.RunTime.Seconds())
	}
	return nil
}

// failedStep names what a side's BuildError is about: its build, or its launcher once built.
func failedStep(s *Side) string {
	if s.BuildStep == binaries.StepCheck {
		return "the launcher cannot be driven"
	}
	return "build failed"
}
