// Package bisect is the bisect command: from a red lane to the first commit that broke it, each
// step built in a worktree of its own and judged by the specs the bad commit fails.
package bisect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/classproof/classproof/helpers/base/git"
	"github.com/classproof/classproof/helpers/base/identity"
	"github.com/classproof/classproof/helpers/manifest"
)

// Options are the search's inputs: the flags (paths absolute) and the launcher resolved
// from them, built from each step's worktree.
type Options struct {
	Flags    Flags
	Launcher *manifest.Resolved
	Progress io.Writer // a line per step; nil for quiet
	Deadline time.Time
}

// Commit is one commit of the search.
type Commit struct {
	SHA     string `json:"sha"`
	Subject string `json:"subject"`
}

// Step is one lane run of the search: the commit, what the run said of the specs, and where its
// report is.
type Step struct {
	Commit
	What    string   `json:"what"`    // "bad", "good", "confirm" or a step's "step N"
	Verdict string   `json:"verdict"` // bad, good or skipped
	Why     string   `json:"why,omitempty"`
	Failed  []string `json:"failed,omitempty"` // the specs that failed by their own assertion
	Report  string   `json:"report,omitempty"`
	Focused bool     `json:"focused"` // only the specs that fail on --bad ran
	Seconds float64  `json:"seconds"`
	// passed are the specs judged that passed; undecided those that neither passed nor failed by
	// their own assertion (another failure, not run).
	passed, undecided []string
}

// Bisection is what the search found: the first bad commit, the specs that broke there, the
// commits it skipped and why, and every lane run it made.
type Bisection struct {
	Options  Options  `json:"-"`
	Repo     string   `json:"repo"`
	Good     Commit   `json:"good"`
	Bad      Commit   `json:"bad"`
	Range    int      `json:"commits_in_range"`
	Specs    []string `json:"specs"` // what fails on --bad by its own assertion: the search's focus
	Found    bool     `json:"found"`
	Why      string   `json:"why,omitempty"` // why nothing was found
	FirstBad *Commit  `json:"first_bad,omitempty"`
	Parent   *Commit  `json:"parent,omitempty"`
	Broke    []string `json:"broke,omitempty"` // passed on Parent, fail on FirstBad by their own assertion
	Skipped  []Step   `json:"skipped,omitempty"`
	Steps    []Step   `json:"steps"`
	Duration float64  `json:"seconds"`
}

// FocusedRuns counts the lane runs of the focused specs (--good's and each step's).
func (b *Bisection) FocusedRuns() int {
	n := 0
	for _, s := range b.Steps {
		if s.Focused {
			n++
		}
	}
	return n
}

// ErrRefused is a search refused before any step: the range does not bracket a failure.
var ErrRefused = errors.New("refused")

// bisector is one search in progress.
type bisector struct {
	o    Options
	b    *Bisection
	work string
	n    int // steps so far, for folder names
}

// Search finds the first commit between --good and --bad whose lane fails, by their own
// assertion, the specs --bad fails. Each step builds its commit in a worktree of its own (the
// user's checkout, index and bisect state are never touched) and runs only those specs; a
// commit whose build fails or whose run breaks before the specs judge is skipped, as git
// bisect's 125. It ends with the lane whole on the commit it names. Everything it made is gone
// when it returns, also on an interrupt (ctx).
func Search(ctx context.Context, o Options) (*Bisection, error) {
	start := time.Now()
	f := o.Flags
	bs := &bisector{o: o, b: &Bisection{Options: o, Repo: f.Repo}}
	var err error
	if bs.b.Good, bs.b.Bad, err = bs.commits(); err != nil {
		return nil, err
	}
	list, err := git.Run(f.Repo, "rev-list", "--first-parent", "--reverse", bs.b.Good.SHA+".."+bs.b.Bad.SHA)
	if err != nil {
		return nil, err
	}
	shas := strings.Fields(list)
	bs.b.Range = len(shas)
	if err := os.MkdirAll(f.Out, 0o755); err != nil {
		return nil, err
	}
	if bs.work, err = identity.Launcher().TempDir("classproof-bisect"); err != nil {
		return nil, err
	}
	defer os.RemoveAll(bs.work)
	err = bs.bracket(ctx)
	if err == nil {
		bs.search(ctx, shas)
	}
	if ctx.Err() != nil {
		// Interrupted: what a step's run reported is not a verdict, refused or found.
		return bs.b, fmt.Errorf("bisect interrupted after %d lane runs: %w", len(bs.b.Steps), context.Cause(ctx))
	}
	if err != nil {
		return bs.b, err
	}
	if bs.b.Found {
		bs.confirm(ctx)
	}
	bs.b.Duration = time.Since(start).Seconds()
	return bs.b, write(bs.b)
}

// commits resolves --good and --bad, --good an ancestor of --bad.
func (bs *bisector) commits() (good, bad Commit, err error) {
	f := bs.o.Flags
	for _, c := range []struct {
		ref string
		to  *Commit
	}{{f.Good, &good}, {f.Bad, &bad}} {
		sha, err := git.Resolve(f.Repo, c.ref)
		if err != nil {
			return good, bad, fmt.Errorf("%s: %w", c.ref, err)
		}
		*c.to = bs.commit(sha)
	}
	if good.SHA == bad.SHA {
		return good, bad, fmt.Errorf("--good and --bad are one commit (%s): nothing to search", git.Short(good.SHA))
	}
	if _, err := git.Run(f.Repo, "merge-base", "--is-ancestor", good.SHA, bad.SHA); err != nil {
		return good, bad, fmt.Errorf("--good %s (%s) is not an ancestor of --bad %s (%s): give a good commit before the bad one", f.Good, git.Short(good.SHA), f.Bad, git.Short(bad.SHA))
	}
	return good, bad, nil
}

func (bs *bisector) commit(sha string) Commit {
	subject, _ := git.Run(bs.o.Flags.Repo, "log", "-1", "--format=%s", sha)
	return Commit{SHA: sha, Subject: subject}
}

func (bs *bisector) say(format string, a ...any) {
	if bs.o.Progress != nil {
		fmt.Fprintf(bs.o.Progress, "classproof bisect: "+format+"\n", a...)
	}
}
