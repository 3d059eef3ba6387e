package runner

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"

	"github.com/classproof/classproof/helpers/base/files"
	"github.com/classproof/classproof/helpers/lane"
	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/report"
)

// finish reads the report, decides the lane's problems and writes run.json.
//
// It runs once every launcher process of the run is gone (the sweep closed the run's cgroup), in
// a folder no launcher process could write (helpers/base/sandbox): the reports it reads here are the
// ones it judges, and run.json records their digests, which the gate checks.
func finish(res *Result, m *launcher.Manifest, o Options, out string) error {
	res.Injected = injected(o, out)
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
		p, _ := lane.ByLabel(res.Lane)
		res.Run.Reasons, res.Run.Lane = m.LeftOut(p.Meaning), res.Lane
	}
	res.Problems = append(laneProblems(o, res.Run, res.Lane, res.Filter), res.Problems...)
	meta := report.Meta{Lane: res.Lane, Target: m.Source, Filter: res.Filter, GOOS: runtime.GOOS, GOARCH: runtime.GOARCH,
		Procs: o.Procs, DryRun: o.DryRun, Forced: o.ForeignLane, Leaks: res.Leaks, Refused: res.Refused, Passed: res.Passed(),
		Problems: res.Problems, Stopped: res.Stopped,
		Duration: res.Duration, Phases: res.Phases, Containment: res.Containment,
		Sandbox: res.Sandbox.String(), Sandboxed: res.Sandbox.Confined(), SandboxLacks: res.Sandbox.Lacks(),
		LauncherIdentity: res.Identity.String(), LauncherRoot: res.Identity.Root(), Digests: digests}
	b, _ := json.MarshalIndent(meta, "", "  ")
	return files.WriteFile(filepath.Join(out, "run.json"), b, 0o644)
}
