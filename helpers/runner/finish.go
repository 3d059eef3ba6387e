package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/classproof/classproof/helpers/base/faults"
	"github.com/classproof/classproof/helpers/base/files"
	"github.com/classproof/classproof/helpers/manifest"
	"github.com/classproof/classproof/helpers/report"
)

// finish reads the report, decides the lane's problems and writes run.json.
//
// It runs once every launcher process of the run is gone (the sweep closed the run's cgroup), in
// a folder no launcher process could write (helpers/base/confine): the reports it reads here are the
// ones it judges, and run.json records their digests, which the gate checks.
func finish(res *Result, m *manifest.Manifest, o Options, pl plan) error {
	if err := seal(res, m, o, pl); err != nil {
		return &EndError{Step: EndReport, Err: err}
	}
	return nil
}

// seal reads the run's report back and writes run.json over it (finish).
func seal(res *Result, m *manifest.Manifest, o Options, pl plan) error {
	out := pl.out
	injected(res, o, out)
	digests := map[string]string{}
	for _, name := range report.Finalised {
		b, err := os.ReadFile(filepath.Join(out, name))
		if errors.Is(err, os.ErrNotExist) {
			continue
		} else if err != nil {
			return err
		}
		digests[name] = report.Digest(b)
		if name == "report.json" {
			if res.Run, err = report.Parse(b, res.ReportPath, res.Filter); err != nil {
				return err
			}
		}
	}
	if res.Run != nil {
		res.Run.Reasons, res.Run.Lane = pl.leftOut, res.Lane
	}
	res.Problems = append(laneProblems(o, res.Run, res.Lane, res.Filter), res.Problems...)
	meta := report.Meta{Lane: res.Lane, Target: m.Source, Filter: res.Filter, GOOS: runtime.GOOS, GOARCH: runtime.GOARCH,
		Procs: o.Procs, DryRun: o.DryRun, Forced: o.ForeignLane, Leaks: res.Leaks, Refused: res.Refused, Left: res.Left, LauncherPeak: res.Peak, LauncherLimits: res.Limits.InForce(res.Identity), Passed: res.Passed(),
		Problems: res.Problems, Stopped: res.Stopped,
		Duration: res.Duration, Phases: res.Phases, Containment: res.Containment, LedgerAppendOnly: res.LedgerAppendOnly, LedgerChannel: res.LedgerChannel,
		Sandbox: res.Sandbox.String(), Sandboxed: res.Sandbox.Confined(), SandboxLacks: res.Sandbox.Lacks(),
		LauncherIdentity: res.Identity.String(), LauncherRoot: res.Identity.Root(), Digests: digests}
	b, _ := json.MarshalIndent(meta, "", "  ")
	return files.WriteFile(filepath.Join(out, "run.json"), b, 0o644)
}

// injectLog is where the suites record each call of an injected fault (contract.InjectLogEnv).
func injectLog(out string) string { return filepath.Join(out, "injected.log") }

// injected counts the calls of the run's injected fault the suites answered, from the counts
// each suite process kept in memory and wrote beside the log (faults.InjectedCount), and says so
// in the log: 0 is a fault that never fired, which the run cannot call caught or missed. A count
// it cannot read fails the run.
func injected(res *Result, o Options, out string) {
	if o.Inject == "" {
		return
	}
	n, found, err := faults.InjectedCount(injectLog(out))
	if err != nil {
		res.Problems = append(res.Problems, err.Error())
		fmt.Fprintf(o.Log, "classproof: fault injected: %s, calls answered unknown: %v\n", faults.Describe(o.Inject), err)
		return
	}
	res.Injected, res.InjectCounted = int(n), found
	said := ""
	switch {
	case !found:
		said = " (unknown: no launcher instance of the run closed to count them)"
	case n == 0:
		said = " (it never fired: the launcher never made that call, in any ABI)"
	}
	fmt.Fprintf(o.Log, "classproof: fault injected: %s, %d calls answered%s\n", faults.Describe(o.Inject), n, said)
}

// The steps of a run that come after its specs ran (EndError.Step).
const (
	EndSweep  = "sweep"  // the leak sweep of the pid ledger and the run's cgroup
	EndReport = "report" // writing run.json and reading the report it seals
)

// EndError is a run whose specs ran and whose ending failed: its Result is returned with it. A
// sweep that could not finish leaves the run unproven clean; a report not written leaves it
// without its verdict files.
type EndError struct {
	Step string
	Err  error
}

func (e *EndError) Error() string {
	return fmt.Sprintf("after the specs ran, the %s failed: %v", e.Step, e.Err)
}

func (e *EndError) Unwrap() error { return e.Err }

// laneProblems are the reasons a run fails beyond Ginkgo's own verdict: it selected nothing, or,
// as a lane, ran none of its platform's specs. A narrowed run (a suite, a focus, a label filter,
// while iterating, without --lane) reports what it ran and is not held to the lane rule.
func laneProblems(o Options, run *report.Run, ln, filter string) []string {
	if run == nil || o.DryRun {
		return nil
	}
	narrowed := (len(o.Suites) > 0 || o.Focus != "" || o.LabelFilter != "") && o.Lane == ""
	c := run.Count()
	switch {
	case c.Ran == 0 && (c.NotRun > 0 || len(run.FailedSuites) > 0):
		// Selected, never started: not a filter's doing but a suite that died first.
		return []string{fmt.Sprintf("no spec ran: %d selected never started, and suite(s) %s did not succeed: a test process that "+
			"crashed or was killed (out of memory, a signal) before its specs; its output is above", c.NotRun, strings.Join(run.FailedSuites, ", "))}
	case c.Ran == 0:
		return []string{"the run selected no spec: its filter " + strconv.Quote(filter) + " left every spec out"}
	case !narrowed && !platformRan(run, ln):
		// A darwin lane that filtered or skipped its darwin specs proves nothing about macOS.
		return []string{fmt.Sprintf("lane %s ran none of its %s-labelled specs to a pass or a failure", ln, ln)}
	}
	return nil
}

func platformRan(r *report.Run, label string) bool {
	for _, s := range r.Specs {
		if o := s.Outcome(); o != report.Passed && o != report.Failed {
			continue
		}
		for _, l := range s.Labels {
			if l == label {
				return true
			}
		}
	}
	return false
}
