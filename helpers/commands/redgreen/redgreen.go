// Package redgreen proves a fix: the selected specs fail on the red commit, by an assertion in the
// spec, and pass on the green one, with every other spec passing on both. Each side is checked out
// in its own git worktree (the user's working tree and index are never touched), built with the
// manifest's build step, and run through the runner with a Ginkgo JSON report. No flake retries.
//
// CLI side: it must not import the Ginkgo DSL, Gomega, helpers/suite or fixtures/ (ci/layers.rules).
package redgreen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/classproof/classproof/helpers/base/git"
	"github.com/classproof/classproof/helpers/base/identity"
	"github.com/classproof/classproof/helpers/binaries"
	"github.com/classproof/classproof/helpers/manifest"
	"github.com/classproof/classproof/helpers/report"
	"github.com/classproof/classproof/helpers/runner"
)

// Options are the prover's inputs: the flags as given (paths absolute; the Reproduce line is
// written from them) and the launchers resolved from them (Flags.Options).
type Options struct {
	Flags
	// Either one launcher, built from each side's checkout of Repo ...
	Launcher *manifest.Resolved
	// ... or two prebuilt launchers, one per side.
	RedLauncher, GreenLauncher *manifest.Resolved
	Selection                  Selection
	Progress                   io.Writer // a line per phase; nil for quiet (CI)
	// Deadline ends the whole proof (--timeout from when it started): every run it makes gets it.
	Deadline time.Time
}

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

// Proof is everything a receipt says.
type Proof struct {
	Options  Options       `json:"-"`
	Red      *Side         `json:"red"`
	Green    *Side         `json:"green"`
	Repeats  []*Side       `json:"repeats,omitempty"`
	Verdict  Verdict       `json:"verdict"`
	Lane     string        `json:"lane"`
	Machine  Machine       `json:"platform"`
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"duration_ns"`
	// Notes are what a reader of the receipt must know about how it was made.
	Notes []string `json:"notes,omitempty"`
}

// Prove runs the whole proof. An error means it could not be attempted (bad refs, bad manifest,
// git failing); a proof that was attempted and failed comes back with Verdict.Proven false.
func Prove(ctx context.Context, o Options) (*Proof, error) {
	start := time.Now()
	p, work, err := newProof(o, start)
	if err != nil {
		return nil, err
	}
	o = p.Options
	repoMode := o.Launcher != nil
	// Worktrees go away whatever happens: return, error, or an interrupt.
	var cleanups []func()
	defer func() {
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
		os.RemoveAll(work)
	}()
	// ctx ends on the CLI's interrupt (helpers/base/interrupt): the proof stops and cleans up.
	defer context.AfterFunc(ctx, func() { progress(o, "interrupted: cleaning up the worktrees") })()

	if repoMode {
		if err := checkRefs(o, p); err != nil {
			return nil, err
		}
		if err := checkReadsRepo(o); err != nil {
			return nil, err
		}
		for _, s := range []*Side{p.Red, p.Green} {
			wt, err := checkout(o, s, work)
			if err != nil {
				return nil, err
			}
			// Only our own worktree goes: a prune would also drop the user's stale entries.
			cleanups = append(cleanups, func() { _, _ = git.Run(o.Repo, "worktree", "remove", "--force", wt) })
		}
	}
	if err := buildAndRun(ctx, o, p); err != nil {
		return nil, err
	}
	p.Verdict = verdict(o, p, ctx.Err() != nil)
	p.Duration = time.Since(start)
	return p, writeReceipts(p)
}

// newProof sets up both sides, with a work folder for their builds.
func newProof(o Options, start time.Time) (*Proof, string, error) {
	if err := o.Selection.Compile(); err != nil {
		return nil, "", err
	}
	if o.Launcher == nil && (o.RedLauncher == nil || o.GreenLauncher == nil) {
		return nil, "", errors.New("redgreen: no launchers: resolve them from the flags first (Flags.Options)")
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, "", err
	}
	work, err := identity.Launcher().TempDir("classproof-redgreen")
	if err != nil {
		return nil, "", err
	}
	p := &Proof{Options: o, Machine: currentMachine(), Started: start}
	p.Red = &Side{Name: "red", Ref: o.Red, launcher: o.RedLauncher, bin: filepath.Join(work, "red-bin")}
	p.Green = &Side{Name: "green", Ref: o.Green, launcher: o.GreenLauncher, bin: filepath.Join(work, "green-bin")}
	for _, s := range []*Side{p.Red, p.Green} {
		if s.launcher != nil {
			s.Target = s.launcher.Ref
		} else {
			s.Target = o.Launcher.Ref
		}
	}
	return p, work, nil
}

// checkout puts a side's commit in a worktree of its own under work.
func checkout(o Options, s *Side, work string) (string, error) {
	wt := filepath.Join(work, s.Name)
	progress(o, "checking out %s %s (%s)", s.Name, s.Ref, git.Short(s.SHA))
	if _, err := git.Run(o.Repo, "worktree", "add", "--detach", wt, s.SHA); err != nil {
		return "", fmt.Errorf("git worktree for %s: %w", s.Name, err)
	}
	s.launcher = o.Launcher.InRepo(wt)
	return wt, nil
}

// buildAndRun builds both sides, runs each that built, then repeats green as asked.
func buildAndRun(ctx context.Context, o Options, p *Proof) error {
	for _, s := range []*Side{p.Red, p.Green} {
		if err := buildSide(ctx, o, s); err != nil {
			return err
		}
	}
	for _, s := range []*Side{p.Red, p.Green} {
		if s.BuildError != "" || ctx.Err() != nil {
			continue
		}
		if err := run(ctx, o, s, s.Name); err != nil {
			return err
		}
		if p.Lane == "" && s.Result != nil {
			p.Lane = s.Result.Lane
		}
	}
	if p.Green.BuildError != "" || p.Green.Result == nil {
		return nil
	}
	for i := 0; i < o.Repeat && ctx.Err() == nil; i++ {
		rep := &Side{Name: fmt.Sprintf("green-repeat-%d", i+1), Ref: p.Green.Ref, SHA: p.Green.SHA, Target: p.Green.Target, launcher: p.Green.launcher, bin: p.Green.bin}
		if err := run(ctx, o, rep, rep.Name); err != nil {
			return err
		}
		p.Repeats = append(p.Repeats, rep)
	}
	return nil
}

func verdict(o Options, p *Proof, interrupted bool) Verdict {
	switch {
	case interrupted:
		return Verdict{Reason: "not proven: interrupted"}
	case p.Red.BuildError != "":
		return Verdict{Reason: "not proven (" + failedStep(p.Red) + " on red): " + report.LastLines(p.Red.BuildError, 3)}
	case p.Green.BuildError != "":
		return Verdict{Reason: "not proven (" + failedStep(p.Green) + " on green): " + report.LastLines(p.Green.BuildError, 3)}
	}
	for _, s := range append([]*Side{p.Red, p.Green}, p.Repeats...) {
		if s.Result == nil || s.Result.Run == nil {
			return Verdict{Reason: fmt.Sprintf("not proven: the %s run wrote no report", s.Name)}
		}
		if len(s.Result.Leaks) > 0 {
			return Verdict{Reason: fmt.Sprintf("not proven: the %s run leaked %s", s.Name, strings.Join(s.Result.Leaks, ", "))}
		}
	}
	var repeats []*report.Run
	for _, r := range p.Repeats {
		repeats = append(repeats, r.Result.Run)
	}
	return Judge(&o.Selection, p.Red.Result.Run, p.Green.Result.Run, repeats)
}

// checkRefs resolves both refs: they must be two different commits, and a ref at HEAD while the
// tree has uncommitted changes to tracked files is refused unless AllowDirty (the proof would
// build the commit, not what the user sees), and then noted.
func checkRefs(o Options, p *Proof) error {
	for _, s := range []*Side{p.Red, p.Green} {
		sha, err := git.Resolve(o.Repo, s.Ref)
		if err != nil {
			return fmt.Errorf("%s ref %q in %s: %w", s.Name, s.Ref, o.Repo, err)
		}
		s.SHA = sha
	}
	if p.Red.SHA == p.Green.SHA {
		return fmt.Errorf("--red %s and --green %s are the same commit %s: a proof needs the commit before the fix and the fix", o.Red, o.Green, git.Short(p.Red.SHA))
	}
	head, _ := git.Run(o.Repo, "rev-parse", "HEAD")
	dirty, _ := git.Run(o.Repo, "status", "--porcelain", "--untracked-files=no")
	if dirty == "" || (p.Red.SHA != head && p.Green.SHA != head) {
		return nil
	}
	if !o.AllowDirty {
		return fmt.Errorf("%s has uncommitted changes to tracked files, and a ref is HEAD (%s): the proof would build the commit, not your tree; commit them, or pass --allow-dirty", o.Repo, git.Short(head))
	}
	p.Notes = append(p.Notes, fmt.Sprintf("%s had uncommitted changes to tracked files at HEAD %s; both sides were built from their commits, not from the working tree", o.Repo, git.Short(head)))
	return nil
}

// checkReadsRepo refuses, before anything is built, a manifest whose launcher does not come from
// {repo}: both sides would build and run the same tree, and the receipt would speak of commits
// that were never built.
func checkReadsRepo(o Options) error {
	m := o.Launcher.Manifest
	if ok, why := m.ReadsRepo(); !ok {
		return fmt.Errorf("target manifest %s: %s, so both sides would run the same launcher and the receipt would name commits never built; use {repo} (each side's checkout) in build.dir or build.run, or in daemon.run when there is no build step", m.Source, why)
	}
	return nil
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

func progress(o Options, format string, a ...any) {
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, "classproof redgreen: "+format+"\n", a...)
	}
}

// failedStep names what a side's BuildError is about: its build, or its launcher once built.
func failedStep(s *Side) string {
	if s.BuildStep == binaries.StepCheck {
		return "the launcher cannot be driven"
	}
	return "build failed"
}
