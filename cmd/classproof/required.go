package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/classproof/classproof/fixtures/targets"
	"github.com/classproof/classproof/helpers/gate"
	"github.com/classproof/classproof/helpers/lane"
	"github.com/classproof/classproof/helpers/runner"
)

var requiredCommand = command{"required-specs", "make (or --check) ci/required-specs.yaml from a dry run of every lane",
	"classproof required-specs --check", "0 agrees or written; 1 disagrees; 2 bad flags, or a list, run or suite that cannot be read", requiredCmd}

// requiredFlags is required-specs' share of the run flags: its deadline.
var requiredFlags = runner.Share{Takes: runner.FlagTimeout, Defaults: runner.RunFlags{Timeout: 10 * time.Minute},
	Bounds: "the dry runs of every lane"}

func requiredCmd(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("required-specs", flag.ContinueOnError)
	path, check, rehearsal := "ci/required-specs.yaml", false, ""
	f := requiredFlags.Defaults
	own := runner.Table{
		{Name: "file", Str: &path, Usage: "the required-spec list"},
		{Name: "check", On: &check, Usage: "do not write: fail if the file and the suites disagree"},
		{Name: "rehearsal", Str: &rehearsal, Usage: "a lane's dry-run report folder (ci/lane LANE --dry-run): fail unless it selected exactly the lane's listed specs"},
	}
	append(own, f.Table(requiredFlags)...).Define(fs)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	deadline := f.Deadline(time.Now())
	if rehearsal != "" {
		req, err := gate.LoadRequired(path)
		if err == nil {
			var line string
			if line, err = gate.Rehearse(rehearsal, req); err == nil {
				fmt.Println("classproof required-specs:", line)
				return exitPassed
			}
		}
		return fail("required-specs", err)
	}
	if err := writeOrCheck(ctx, path, check, deadline); err != nil {
		return fail("required-specs", err)
	}
	if check {
		fmt.Printf("classproof required-specs: %s agrees with the suites\n", path)
	} else {
		fmt.Printf("classproof required-specs: wrote %s\n", path)
	}
	return exitPassed
}

// generate lists, for every lane, the specs it runs, from a Ginkgo dry run of the suites with the
// lane's filter (nothing is executed, so every lane is listed from any OS). Each lane's
// allow_runtime_skips is kept from previous. It lives with the command, not in gate: the gate
// judges reports, it does not run suites.
func generate(ctx context.Context, workDir string, previous *gate.Required, deadline time.Time) (*gate.Required, error) {
	r := &gate.Required{Lanes: map[string]*gate.Policy{}}
	for _, ln := range lane.Names() {
		t, err := targets.Resolve("", ln, nil, "")
		if err != nil {
			return nil, err
		}
		res, err := runner.Run(ctx, runner.Options{Target: t, Lane: ln, DryRun: true, OutDir: filepath.Join(workDir, ln), Log: io.Discard, Deadline: deadline})
		if err != nil {
			return nil, fmt.Errorf("dry run of lane %s: %w", ln, err)
		}
		if res.Run == nil || res.GinkgoErr != nil {
			return nil, fmt.Errorf("dry run of lane %s failed (%v); see %s", ln, res.GinkgoErr, res.ReportPath)
		}
		p := &gate.Policy{}
		if previous != nil && previous.Lanes[ln] != nil {
			p.AllowRuntimeSkips = previous.Lanes[ln].AllowRuntimeSkips
		}
		for _, s := range res.Run.Specs {
			if !s.Filtered {
				p.Specs = append(p.Specs, s.Name)
			}
		}
		sort.Strings(p.Specs)
		r.Lanes[ln] = p
	}
	return r, nil
}

// writeOrCheck makes the file at path, or with check only compares and returns an error naming
// every difference.
func writeOrCheck(ctx context.Context, path string, check bool, deadline time.Time) error {
	previous, err := gate.LoadRequired(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	work, err := os.MkdirTemp("", "classproof-required")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	want, err := generate(ctx, work, previous, deadline)
	if err != nil {
		return err
	}
	if check {
		if d := gate.Diff(previous, want); d != "" || previous == nil {
			return gate.Disagreement(fmt.Sprintf("%s disagrees with the suites (run 'make required-specs' and review):\n%s", path, d))
		}
		return nil
	}
	b, err := want.Marshal()
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
