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
	"github.com/classproof/classproof/helpers/manifest"
	"github.com/classproof/classproof/helpers/report"
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

func progress(o Options, format string, a ...any) {
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, "classproof redgreen: "+format+"\n", a...)
	}
}
