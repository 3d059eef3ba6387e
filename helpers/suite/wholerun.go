package suite

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"

	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/label"
	"github.com/classproof/classproof/helpers/base/proc"
	"github.com/classproof/classproof/helpers/lane"
	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/oracle"
)

// runLong are the sessions started at the suite's beginning, on Ginkgo's first process, and held
// until its end: a launcher that changes a class seconds after a start (a focus raise, a budget
// check, a cache that expires) does it long after each spec's own sessions have ended. The
// whole-run spec runs last on that process (Serial, lowest priority) and judges them then.
type runLong struct {
	set      *proc.Set
	cancel   context.CancelFunc
	l        *launcher.Instance
	sessions []*launcher.Session
	err      error
	since    time.Time
}

// startLong starts one instance with a direct and (where the target has them) a hosted session.
// A failure is kept for the whole-run spec to report: it must not stop every other spec. It runs
// before the first spec, not beside it: an instance's pids are written as it starts, and the
// other instances of the process read them.
func (env *Env) startLong() {
	if GinkgoParallelProcess() != 1 || !env.longSelected() {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &runLong{set: proc.NewSet(), cancel: cancel, since: time.Now()}
	env.long = r
	r.start(ctx, env)
}

func (r *runLong) start(ctx context.Context, env *Env) {
	if r.l, r.err = env.Driver.Launch(ctx, r.set, launcher.LaunchOptions{}, GinkgoWriter, env.Timeout); r.err != nil {
		return
	}
	modes := []launcher.Mode{launcher.Direct}
	if len(env.Manifest.Session.Hosted) > 0 {
		modes = append(modes, launcher.Hosted)
	}
	for _, m := range modes {
		s, err := r.l.StartSession(m, nil)
		if err != nil {
			r.err = fmt.Errorf("the %s session started at the suite's beginning: %w", m, err)
			return
		}
		r.sessions = append(r.sessions, s)
	}
}

// endLong kills what startLong started, before the suite's leak scans: it is the suite's, not a
// leak. What the watch saw change in its life is returned, a receipt line each, and what the
// kill could not do as an error: the caller reports both, and goes on to its leak scans.
func (env *Env) endLong() ([]string, error) {
	r := env.long
	if r == nil {
		return nil, nil
	}
	env.long = nil
	var changed []string
	if r.l != nil {
		changed = watch.changes(r.l.Started())
	}
	r.cancel()
	err := r.set.KillAll(env.Timeout)
	if r.l != nil {
		r.l.Close()
	}
	if err != nil {
		err = fmt.Errorf("ending the sessions started at the suite's beginning: %w", err)
	}
	return changed, err
}

// longSelected says whether this run's filters select the whole-run spec of this run's platform:
// a run focused elsewhere (a kill matrix's first spec, --focus, a label filter) starts no
// sessions it would never judge, nor spends their start on its first process. A file filter
// (FocusFiles, SkipFiles) is not read here: the sessions start.
func (env *Env) longSelected() bool {
	cfg, _ := GinkgoConfiguration()
	if len(cfg.FocusFiles)+len(cfg.SkipFiles) > 0 {
		return true
	}
	p := env.Platform
	if cfg.LabelFilter != "" {
		if match, err := types.ParseLabelFilter(cfg.LabelFilter); err == nil && !match(wholeRunLabels(p)) {
			return false
		}
	}
	// As Ginkgo matches a focus: the suite's description, a space, the spec's full text
	// (internal/focus.go); runner.FocusOn's focus needs that space.
	text := strings.Join([]string{env.suiteDescription, env.wholeRunTitle, p.Title, wholeRunIt(p)}, " ")
	for _, s := range cfg.SkipStrings {
		if ok, _ := regexp.MatchString(s, text); ok {
			return false
		}
	}
	for _, s := range cfg.FocusStrings {
		if ok, _ := regexp.MatchString(s, text); ok {
			return true
		}
	}
	return len(cfg.FocusStrings) == 0
}

// wholeRunLabels are the whole-run spec's labels: the spec's and longSelected's one list.
func wholeRunLabels(p lane.Platform) []string {
	return []string{p.Label, label.InheritArea, label.DirectArea, label.SeedInherit, label.SeedNoRaise}
}

func wholeRunIt(p lane.Platform) string {
	return fmt.Sprintf("keeps the direct and the hosted session started at the suite's beginning, and a tool each starts at its end, at %s until the suite's end", p.Class)
}

// wholeRun registers the whole-run spec, one per platform, in every suite; its text names the
// suite (the folder of the file that called Setup), so that a gate that keys specs by their text
// tells one suite's from another's.
func (env *Env) wholeRun(suiteName string) {
	env.wholeRunTitle = contract.WholeRunPrefix + suiteName + " suite"
	Describe(env.wholeRunTitle, func() {
		for _, p := range lane.Platforms {
			Describe(p.Title, Label(wholeRunLabels(p)...), func() {
				It(wholeRunIt(p), Serial, SpecPriority(-1), func() {
					RequirePlatform(p, env.Platform)
					env.judgeLong(p)
				})
			})
		}
	})
}

func (env *Env) judgeLong(p lane.Platform) {
	r := env.long
	if r == nil {
		Fail("no sessions were started at the suite's beginning: the whole-run spec runs on Ginkgo's first process, after every other spec")
	}
	Must(r.err, "starting the sessions at the suite's beginning")
	control := env.Control()
	Must(r.l.Account(), "accounting for the launcher's harnesses")
	var subjects []oracle.Subject
	for _, s := range r.sessions {
		_, err := s.StartLateTool()
		Must(err, "starting a late tool in the "+string(s.Mode)+" harness started at the suite's beginning")
		subjects = append(subjects, s.Subjects()...)
	}
	recordCalls(r.l) // what the sessions' processes made of the class calls, for a kill matrix
	age := time.Since(r.since).Round(time.Millisecond)
	AddReportEntry("the whole run's horizon", fmt.Sprintf("the sessions started at the suite's beginning ran %v, read by the watch every %v", age, WatchPoll))
	Expect(Observe(subjects...)).To(BeAtBackground(p.Meaning, control), "the sessions started at the suite's beginning, %v ago", age)
	if c := failChanges(watch.changes(r.l.Started()), fmt.Sprintf("the sessions started at the suite's beginning (%v ago)", age)); c != "" {
		Fail(c)
	}
}
