// Package gate decides whether a release may go: it reads every lane's reports and fails when a
// spec failed, a spec was skipped at run time where its lane allows none, a required spec did not
// run and pass in its lane, or a lane's report is missing or ran nothing.
//
// CLI side: it must not import the Ginkgo DSL, Gomega, helpers/suite or fixtures/ (ci/layers.rules).
package gate

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

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

func rel(base, p string) string {
	if r, err := filepath.Rel(base, p); err == nil {
		return r
	}
	return p
}
