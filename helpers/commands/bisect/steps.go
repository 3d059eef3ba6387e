package bisect

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/classproof/classproof/helpers/base/git"
	"github.com/classproof/classproof/helpers/binaries"
	"github.com/classproof/classproof/helpers/report"
	"github.com/classproof/classproof/helpers/runner"
)

// bracket runs the lane on --bad (the user's selection: its failing specs become the search's
// focus) and those specs on --good; a range that does not bracket them is refused, named.
func (bs *bisector) bracket(ctx context.Context) error {
	f := bs.o.Flags
	bad := bs.step(ctx, bs.b.Bad, "bad", "")
	if bad.Verdict == "skipped" {
		return fmt.Errorf("%w: --bad %s (%s): %s", ErrRefused, f.Bad, git.Short(bad.SHA), bad.Why)
	}
	bs.b.Specs = bad.Failed
	if len(bs.b.Specs) == 0 {
		return fmt.Errorf("%w: no spec fails on --bad %s (%s) by its own assertion: nothing to bisect (its report: %s)", ErrRefused, f.Bad, git.Short(bad.SHA), bad.Report)
	}
	if (f.Focus != "" || f.LabelFilter != "") && len(bad.passed) > 0 {
		return fmt.Errorf("%w: the selection's specs that pass on --bad %s (%s): %s; select only what --bad fails", ErrRefused, f.Bad, git.Short(bad.SHA), strings.Join(bad.passed, "; "))
	}
	bs.say("%d specs fail on --bad %s by their own assertion; checking them on --good %s", len(bs.b.Specs), git.Short(bad.SHA), git.Short(bs.b.Good.SHA))
	good := bs.step(ctx, bs.b.Good, "good", runner.FocusOn(bs.b.Specs))
	switch {
	case good.Verdict == "skipped":
		return fmt.Errorf("%w: --good %s (%s): %s", ErrRefused, f.Good, git.Short(good.SHA), good.Why)
	case good.Verdict == "bad" || len(good.undecided) > 0:
		return fmt.Errorf("%w: specs that fail on --good %s (%s) too: %s; a search needs a good commit that passes them", ErrRefused, f.Good, git.Short(good.SHA), strings.Join(append(good.Failed, good.undecided...), "; "))
	}
	return nil
}

// search halves the commits between --good and --bad; a skipped commit's nearest neighbour to
// the middle is tried instead.
func (bs *bisector) search(ctx context.Context, shas []string) {
	lo, hi := -1, len(shas)-1 // shas[hi] fails; lo passes (-1: --good)
	failedAt := map[int][]string{hi: bs.b.Specs}
	skipped := map[int]bool{}
	for hi-lo > 1 && ctx.Err() == nil {
		mid := pick(lo, hi, skipped)
		if mid < 0 {
			break
		}
		st := bs.step(ctx, bs.commit(shas[mid]), fmt.Sprintf("step %d", len(bs.b.Steps)-1), runner.FocusOn(bs.b.Specs))
		switch st.Verdict {
		case "bad":
			hi, failedAt[mid] = mid, st.Failed
		case "good":
			lo = mid
		default:
			skipped[mid] = true
			bs.b.Skipped = append(bs.b.Skipped, st)
		}
	}
	if ctx.Err() != nil {
		return
	}
	if hi-lo == 1 {
		bs.b.Found = true
		first := bs.commit(shas[hi])
		parent := bs.b.Good
		if lo >= 0 {
			parent = bs.commit(shas[lo])
		}
		bs.b.FirstBad, bs.b.Parent, bs.b.Broke = &first, &parent, failedAt[hi]
		return
	}
	var between []string
	for i := lo + 1; i <= hi; i++ {
		between = append(between, git.Short(shas[i]))
	}
	bs.b.Why = fmt.Sprintf("the first bad commit is one of %s: the ones before %s were skipped (see below), so the range never turned at one commit", strings.Join(between, ", "), git.Short(shas[hi]))
}

// pick is the untried index strictly between lo and hi nearest the middle; -1 when every one was
// skipped.
func pick(lo, hi int, skipped map[int]bool) int {
	mid := (lo + hi) / 2
	for d := 0; mid-d > lo || mid+d < hi; d++ {
		for _, i := range []int{mid - d, mid + d} {
			if i > lo && i < hi && !skipped[i] {
				return i
			}
		}
	}
	return -1
}

// confirm runs the lane's selection whole on the first bad commit: the specs that broke there
// must fail again by their own assertion, or nothing was found.
func (bs *bisector) confirm(ctx context.Context) {
	st := bs.step(ctx, *bs.b.FirstBad, "confirm", "")
	var missing []string
	for _, s := range bs.b.Broke {
		if !slices.Contains(st.Failed, s) {
			missing = append(missing, s)
		}
	}
	if st.Verdict == "skipped" || len(missing) > 0 {
		bs.b.Found = false
		bs.b.Why = fmt.Sprintf("the confirming run of the lane on %s did not fail %s by their own assertion (%s): a spec that does not fail the same way twice", git.Short(bs.b.FirstBad.SHA), strings.Join(missing, "; "), cmp.Or(st.Why, st.Verdict))
	}
}

// step builds c in a worktree of its own and runs the lane on it, focused (focus "": the user's
// selection), its report under --out/steps. Its verdict: bad when a spec of the search fails by
// its own assertion (on --bad, any spec), good when every one passed, else skipped with why.
func (bs *bisector) step(ctx context.Context, c Commit, what, focus string) Step {
	bs.n++
	f := bs.o.Flags
	st := Step{Commit: c, What: what, Focused: focus != ""}
	t := time.Now()
	defer func() { st.Seconds = time.Since(t).Seconds(); bs.b.Steps = append(bs.b.Steps, st) }()
	bs.say("%s: %s %s", what, git.Short(c.SHA), c.Subject)
	dir := filepath.Join(f.Out, "steps", fmt.Sprintf("%02d-%s", bs.n, git.Short(c.SHA)))
	wt, bin := filepath.Join(bs.work, fmt.Sprintf("wt-%d", bs.n)), filepath.Join(bs.work, fmt.Sprintf("bin-%d", bs.n))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		st.Verdict, st.Why = "skipped", err.Error()
		return st
	}
	if _, err := git.Run(f.Repo, "worktree", "add", "--detach", wt, c.SHA); err != nil {
		st.Verdict, st.Why = "skipped", err.Error()
		return st
	}
	// Only this step's own worktree goes: a prune would also drop the user's stale entries.
	defer func() { _, _ = git.Run(f.Repo, "worktree", "remove", "--force", wt); os.RemoveAll(bin) }()
	t2 := bs.o.Launcher.InRepo(wt)
	var log strings.Builder
	if _, _, err := binaries.Launcher(ctx, t2, binaries.Where{Dir: bin}, &log); err != nil {
		var le *binaries.LauncherError
		st.Verdict, st.Why = "skipped", "it could not be made ready: "+err.Error()
		if errors.As(err, &le) {
			st.Why = fmt.Sprintf("its launcher's %s failed (git bisect's 125): %s", le.Step, report.LastLines(le.Error(), 3))
		}
		return st
	}
	logf, err := os.Create(filepath.Join(dir, "ginkgo.log"))
	if err != nil {
		st.Verdict, st.Why = "skipped", err.Error()
		return st
	}
	defer logf.Close()
	ro := f.RunFlags.Options(t2, bs.o.Deadline)
	ro.OutDir, ro.BinDir, ro.Log = dir, bin, logf
	if focus != "" {
		ro.Focus = focus
	}
	res, err := runner.Run(ctx, ro)
	if res != nil {
		st.Report = res.ReportPath
	}
	judge(&st, res, err, bs.b.Specs, what == "bad")
	return st
}

// judge sets a step's verdict from its run: of the search's specs (on --bad, every spec the run
// selected), which failed by their own assertion, which passed, which neither.
func judge(st *Step, res *runner.Result, err error, want []string, onBad bool) {
	switch {
	case err != nil && (res == nil || res.Run == nil):
		st.Verdict, st.Why = "skipped", "the run could not be made: "+err.Error()
		return
	case res == nil || res.Run == nil:
		st.Verdict, st.Why = "skipped", "the run wrote no report: "+cmp.Or(res.Stopped, "it stopped before the specs")
		return
	}
	specs := res.Run.ByName()
	if onBad {
		want = nil
		for _, s := range res.Run.Specs {
			if !s.Filtered {
				want = append(want, s.Name)
			}
		}
	}
	for _, name := range want {
		s, ok := specs[name]
		proves, why := s.OwnFailure("on this commit")
		if !ok {
			why = "not run"
		}
		switch {
		case ok && proves:
			st.Failed = append(st.Failed, name)
		case ok && s.State == "passed":
			st.passed = append(st.passed, name)
		default:
			st.undecided = append(st.undecided, name+": "+why)
		}
	}
	switch {
	case len(st.Failed) > 0:
		st.Verdict = "bad"
	case len(st.undecided) == 0 && len(want) > 0:
		st.Verdict = "good"
	default:
		st.Verdict, st.Why = "skipped", "its run did not judge the specs (git bisect's 125): "+report.FirstLine(strings.Join(st.undecided, "; "))
	}
}
