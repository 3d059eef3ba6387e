package gate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/classproof/classproof/helpers/base/label"
	"github.com/classproof/classproof/helpers/report"
)

// Lane is one lane's report folder, judged.
type Lane struct {
	Name     string
	Dir      string
	Meta     report.Meta
	Count    report.Count
	Skips    []report.Spec
	Problems []string
	Required int // how many required specs it had
	Present  int // how many of them ran and passed
}

func judge(dir string, req *Required, o Options) *Lane {
	l := &Lane{Name: filepath.Base(dir), Dir: dir}
	l.readMeta()
	if o.RequireSandbox && !l.Meta.Sandboxed {
		without := "without a sandbox"
		if !strings.HasPrefix(l.Meta.Sandbox, "none") {
			without = "in a sandbox that does not refuse every write"
		}
		l.add("the launcher ran %s (run.json: %q), and --require-sandbox asks for one: its processes could have written this report and the kit's binaries", without, l.Meta.Sandbox)
	}
	if o.RequireSandbox && l.Meta.LauncherIdentity == "" {
		l.add("run.json records no launcher identity (a run by an older kit), and --require-sandbox asks for a launcher without root's power")
	}
	if o.RequireSandbox && l.Meta.LauncherRoot {
		l.add("the launcher ran with root's power (run.json launcher_identity: %q), and --require-sandbox asks for a launcher without it: a root process writes /proc/sys and the kit's own /proc entries whatever the sandbox; run the kit as an unprivileged user", l.Meta.LauncherIdentity)
	}
	run, err := report.Load(filepath.Join(dir, "report.json"), l.Meta.Filter)
	if err != nil {
		l.add("report.json: %v", err)
		return l
	}
	l.Count = run.Count()
	l.checkRun(run)
	policy := &Policy{}
	if req != nil && req.Lanes[l.Name] != nil {
		policy = req.Lanes[l.Name]
	}
	l.checkSpecs(run, policy)
	l.checkConventions(run, policy)
	return l
}

func (l *Lane) add(format string, a ...any) {
	l.Problems = append(l.Problems, fmt.Sprintf(format, a...))
}

// readMeta reads run.json, the lane's own verdict (leaks, the lane rule, interrupts): without it,
// or when it says the lane failed, the report alone cannot pass.
func (l *Lane) readMeta() {
	b, err := os.ReadFile(filepath.Join(l.Dir, "run.json"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		l.add("no run.json beside report.json: the lane's run did not finish (killed?) or the report came from elsewhere")
	case err != nil:
		l.add("run.json: %v", err)
	default:
		if err := json.Unmarshal(b, &l.Meta); err != nil {
			l.add("run.json: %v", err)
			return
		}
		if l.Meta.Lane != "" {
			l.Name = l.Meta.Lane
		}
		if !l.Meta.Passed {
			l.add("the lane's own run failed (run.json says passed: false): %s", l.Meta.FailedBecause())
		}
		if _, err := os.Stat(filepath.Join(l.Dir, "report.json")); err == nil || l.Meta.Digests != nil {
			for _, why := range l.Meta.Changed(l.Dir) {
				l.add("%s", why)
			}
		}
	}
}

// checkRun blocks what makes a whole run worthless: a dry run, a failed suite, a forced lane,
// a leak, no spec run, a failed setup node.
func (l *Lane) checkRun(run *report.Run) {
	if l.Meta.DryRun || run.DryRun {
		l.add("a dry run proves nothing")
	}
	for _, s := range run.FailedSuites {
		l.add("suite %s did not succeed (report.json)", s)
	}
	if l.Meta.Forced {
		l.add("the lane was forced onto %s/%s, which it is not for", l.Meta.GOOS, l.Meta.GOARCH)
	}
	for _, leak := range l.Meta.Leaks {
		l.add("leaked %s", leak)
	}
	for _, r := range l.Meta.Refused {
		l.add("the pid ledger held a line the sweep refused: %s", r)
	}
	if l.Count.Ran == 0 {
		l.add("ran no spec")
	}
	for _, s := range run.Setups {
		l.add("%s %s in %s: %s", s.Node, s.State, s.Suite, report.FirstLine(s.Reason))
	}
}

// checkSpecs blocks every spec that did not pass (a runtime skip where the lane allows none
// included) and every required spec that did not run and pass.
func (l *Lane) checkSpecs(run *report.Run, policy *Policy) {
	passed := map[string]bool{}
	present := map[string]string{}
	for _, s := range run.Specs {
		present[s.Name] = s.State
		switch s.Outcome() {
		case report.LeftOut:
		case report.NotRun:
			l.add("did not run (the run stopped first): %s", s.Name)
		case report.Passed:
			passed[s.Name] = true
		case report.Skipped:
			l.Skips = append(l.Skips, s)
			if !policy.AllowRuntimeSkips {
				l.add("skipped at run time, which lane %s does not allow: %s (reason: %s)", l.Name, s.Name, report.FirstLine(s.Reason))
			}
		default:
			l.add("%s: %s: %s", s.State, s.Name, report.FirstLine(s.Reason))
		}
	}
	l.Required = len(policy.Specs)
	for _, name := range policy.Specs {
		if passed[name] {
			l.Present++
			continue
		}
		state, ok := present[name]
		if !ok {
			state = "absent from the report (renamed or deleted?)"
		}
		l.add("required spec did not run and pass (%s): %s", state, name)
	}
}

// checkConventions blocks a convention the launcher committed to whose specs were left out or
// did not pass.
func (l *Lane) checkConventions(run *report.Run, policy *Policy) {
	for _, conv := range policy.Conventions {
		name, ran := label.ConventionPrefix+conv, 0
		for _, s := range run.Specs {
			if !hasLabel(s, name) {
				continue
			}
			if s.Outcome() == report.LeftOut {
				l.add("convention %s is required, but the lane left out: %s", conv, s.Name)
			} else if s.Outcome() == report.Passed {
				ran++
			}
		}
		if ran == 0 {
			l.add("convention %s is required, but no spec labelled %s ran and passed", conv, name)
		}
	}
}

func hasLabel(s report.Spec, label string) bool {
	for _, l := range s.Labels {
		if l == label {
			return true
		}
	}
	return false
}
