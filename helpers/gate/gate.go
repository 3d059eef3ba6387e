// Package gate decides whether a release may go: it reads every lane's reports and fails when a
// spec failed, a spec was skipped at run time where its lane allows none, a required spec did not
// run and pass in its lane, or a lane's report is missing or ran nothing.
//
// CLI side: it must not import the Ginkgo DSL, Gomega, helpers/suite or fixtures/ (ci/layers.rules).
package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/classproof/classproof/helpers/base/label"
	"github.com/classproof/classproof/helpers/report"
)

// Required is ci/required-specs.yaml: per lane, the specs that must run and pass there, and
// whether the lane tolerates a runtime skip.
type Required struct {
	Lanes map[string]*Policy `yaml:"lanes"`
}

// Policy is one lane's part of Required.
type Policy struct {
	AllowRuntimeSkips bool     `yaml:"allow_runtime_skips"`
	Specs             []string `yaml:"specs"`
	// Conventions a launcher commits to (label.Conv* labels without their "conv-" prefix, e.g.
	// fold-case, names-profile): every spec carrying one must run and pass in the lane, so a
	// manifest that stops declaring it blocks the release instead of quietly leaving them out.
	Conventions []string `yaml:"conventions,omitempty"`
}

// LoadRequired reads a required-spec file.
func LoadRequired(path string) (*Required, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w; the required-spec list is read relative to where the gate runs, and ci/required-specs.yaml is the "+
			"kit's own (in its repository and release archive). From a launcher's repository pass --required PATH to a list of "+
			"your own (docs/lanes.md), or --required '' to judge the lanes' reports alone", err)
	}
	if err != nil {
		return nil, err
	}
	var r Required
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

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

// Verdict is the gate's decision.
type Verdict struct {
	Pass    bool
	Lanes   []*Lane
	Reasons []string
}

// Options are the gate's optional demands.
type Options struct {
	// RequireSandbox blocks a lane whose launcher ran without a sandbox (run.json sandboxed:
	// false): its processes could write the reports and the kit's binaries.
	RequireSandbox bool
}

// EvaluateWith judges every report folder under dir (each holds report.json and run.json, as
// `classproof run` writes them; one with run.json alone is a run that stopped early, judged
// too), with the optional demands of o. expect names what must be there: a lane ("linux-idle": a
// report of it anywhere), or a lane on a runner ("darwin@macos-15": a report in a folder
// RUNNER/LANE, the layout the workflow writes with one folder per runner). Empty means every lane
// in req.
func EvaluateWith(dir string, req *Required, expect []string, o Options) (*Verdict, error) {
	v := &Verdict{}
	folders := map[string]bool{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (d.Name() == "report.json" || d.Name() == "run.json") {
			folders[filepath.Dir(path)] = true
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading reports under %s: %w", dir, err)
	}
	var sorted []string
	for f := range folders {
		sorted = append(sorted, f)
	}
	sort.Strings(sorted)
	seen := map[string]bool{}
	for _, f := range sorted {
		l := judge(f, req, o)
		seen[l.Name] = true
		seen[l.Name+"@"+filepath.Base(filepath.Dir(f))] = true
		v.Lanes = append(v.Lanes, l)
	}
	if len(expect) == 0 && req != nil {
		for name := range req.Lanes {
			expect = append(expect, name)
		}
		sort.Strings(expect)
	}
	for _, want := range expect {
		if seen[want] {
			continue
		}
		missing := &Lane{Name: want, Problems: []string{"no report: the lane did not run or did not upload its reports"}}
		if name, runner, onRunner := strings.Cut(want, "@"); onRunner {
			missing.Name, missing.Dir = name, filepath.Join(dir, runner, name)
			missing.Problems = []string{fmt.Sprintf("no report from runner %s: nothing under %s (the job did not run, failed before its lane wrote run.json, or did not upload)",
				runner, filepath.Join(runner, name))}
		}
		v.Lanes = append(v.Lanes, missing)
	}
	for _, l := range v.Lanes {
		for _, p := range l.Problems {
			v.Reasons = append(v.Reasons, fmt.Sprintf("%s (%s): %s", l.Name, rel(dir, l.Dir), p))
		}
	}
	if len(v.Lanes) == 0 {
		v.Reasons = append(v.Reasons, "no lane reports at all under "+dir)
	}
	v.Pass = len(v.Reasons) == 0
	return v, nil
}

// ParseMatrix reads a workflow's lane matrix (JSON: [{"lane": L, "runner": R}, ...]) as the
// "L@R" expectations Evaluate takes: every runner of a lane must report, not just one.
func ParseMatrix(s string) ([]string, error) {
	var m []struct{ Lane, Runner string }
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, fmt.Errorf("%q: %w; expected [{\"lane\": \"darwin\", \"runner\": \"macos-15\"}, ...]", s, err)
	}
	var out []string
	for i, p := range m {
		if p.Lane == "" || p.Runner == "" || strings.ContainsAny(p.Runner, "/@") {
			return nil, fmt.Errorf("entry %d %+v: needs a lane and a runner (a runner name holds no / or @)", i, p)
		}
		out = append(out, p.Lane+"@"+p.Runner)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%q: no entries", s)
	}
	return out, nil
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

// Table is the gate's per-lane summary, as it prints it.
func (v *Verdict) Table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-14s %-32s %5s %6s %6s %7s %9s  %s\n", "lane", "report", "ran", "passed", "failed", "skipped", "required", "verdict")
	for _, l := range v.Lanes {
		verdict := "ok"
		if len(l.Problems) > 0 {
			verdict = fmt.Sprintf("FAIL (%d)", len(l.Problems))
		}
		fmt.Fprintf(&b, "%-14s %-32s %5d %6d %6d %7d %4d/%-4d  %s\n", l.Name, short(l.Dir), l.Count.Ran, l.Count.Passed, l.Count.Failed, l.Count.Skipped, l.Present, l.Required, verdict)
		for _, s := range l.Skips {
			fmt.Fprintf(&b, "  skipped: %s\n    reason: %s\n", s.Name, report.FirstLine(s.Reason))
		}
	}
	return b.String()
}

func short(s string) string {
	if len(s) > 32 {
		return "…" + s[len(s)-31:]
	}
	return s
}

func rel(base, p string) string {
	if r, err := filepath.Rel(base, p); err == nil {
		return r
	}
	return p
}
