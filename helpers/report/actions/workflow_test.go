package actions

import (
	"os"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

type step struct {
	Name            string            `yaml:"name"`
	Uses            string            `yaml:"uses"`
	If              string            `yaml:"if"`
	Run             string            `yaml:"run"`
	Env             map[string]string `yaml:"env"`
	ContinueOnError bool              `yaml:"continue-on-error"`
	With            map[string]string `yaml:"with"`
}

func laneSteps(t *testing.T) []step {
	return jobSteps(t, "../../../.github/workflows/lanes.yml", "lane")
}

func jobSteps(t *testing.T, file, job string) []step {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []step `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	return wf.Jobs[job].Steps
}

// The runner's real ps is the evidence a red first macOS run needs most: it is recorded before
// the lane runs (so whatever the lane does, it is there), a failed recording never stops the
// lane, and the reports are uploaded on every outcome.
func TestLanesWorkflowRecordsPsOnEveryOutcome(t *testing.T) {
	record, lane, upload := -1, -1, -1
	steps := laneSteps(t)
	for i, s := range steps {
		switch {
		case strings.Contains(s.Run, "ci/record-ps"):
			record = i
		case strings.Contains(s.Run, "ci/lane "):
			lane = i
		case strings.HasPrefix(s.Uses, "actions/upload-artifact"):
			upload = i
		}
	}
	if record < 0 || lane < 0 || upload < 0 {
		t.Fatalf("lane job: record-ps step %d, lane step %d, upload step %d; want all three", record, lane, upload)
	}
	// Without a status function GitHub adds success(): a failed fetch or setup-go before it would
	// leave the runner's ps unrecorded.
	if !strings.Contains(steps[record].If, "always()") {
		t.Errorf("ps is recorded only if every step before it passed (if: %q); it needs always()", steps[record].If)
	}
	if !steps[record].ContinueOnError {
		t.Error("a failed ps recording would stop the lane: the record step needs continue-on-error")
	}
	if !strings.Contains(steps[upload].If, "always()") {
		t.Errorf("the reports are uploaded only if the lane passed (if: %q)", steps[upload].If)
	}
}

// Both checkouts sit in subfolders, so setup-go must be told where go.sum is, or it caches nothing.
func TestLanesWorkflowCachesModules(t *testing.T) {
	for _, s := range laneSteps(t) {
		if strings.HasPrefix(s.Uses, "actions/setup-go") {
			if s.With["cache-dependency-path"] != "classproof/go.sum" {
				t.Errorf("setup-go cache-dependency-path %q, want classproof/go.sum", s.With["cache-dependency-path"])
			}
			return
		}
	}
	t.Error("no setup-go step in the lane job")
}

// The gate is told every (lane, runner) pair the matrix ran, so two runners of one lane are two
// reports; a lane whose job failed before it ran leaves a failed run.json naming its runner.
func TestLanesWorkflowCountsRunners(t *testing.T) {
	var gate *step
	for _, s := range jobSteps(t, "../../../.github/workflows/lanes.yml", "gate") {
		if strings.Contains(s.Run, " gate ") {
			gate = &s
		}
	}
	if gate == nil || !strings.Contains(gate.Run, `--matrix "$MATRIX"`) || gate.Env["MATRIX"] != "${{ inputs.matrix }}" {
		t.Errorf("the gate step is not given the lane matrix: %+v", gate)
	}
	stopped := false
	for _, s := range laneSteps(t) {
		if strings.Contains(s.Run, "ci/lane") && s.Env["CLASSPROOF_LANE_STOPPED"] != "" {
			stopped = strings.Contains(s.If, "failure()") && strings.Contains(s.Env["CLASSPROOF_REPORTS"], "matrix.runner")
		}
	}
	if !stopped {
		t.Error("no step records, on failure(), a lane that stopped before it ran (ci/lane with CLASSPROOF_LANE_STOPPED in the runner's reports)")
	}
}

// Caches that hit: the kit's build cache restores across commits (the ref is not in its
// restore-keys); the action keys its Go cache by a go.sum it can read (setup-go's own cache
// does not look outside the workspace, where the action lives); both fetch steps name the
// repository the kit comes from, so a fork gets its own release.
func TestCachesHitAndForksFetchTheirOwn(t *testing.T) {
	for _, s := range laneSteps(t) {
		if strings.HasPrefix(s.Uses, "actions/cache") && strings.Contains(s.With["restore-keys"], "classproof-ref") {
			t.Errorf("the build cache's restore-keys hold the ref, so a new commit never restores: %q", s.With["restore-keys"])
		}
		if strings.Contains(s.Run, "ci/fetch-release") && s.Env["CLASSPROOF_REPOSITORY"] != "${{ inputs.classproof-repository }}" {
			t.Errorf("the lane's fetch step ignores classproof-repository: %+v", s.Env)
		}
	}
	b, err := os.ReadFile("../../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Runs struct {
			Steps []step `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(b, &action); err != nil {
		t.Fatal(err)
	}
	keyed := false
	for _, s := range action.Runs.Steps {
		if strings.HasPrefix(s.Uses, "actions/setup-go") && strings.Contains(s.With["cache-dependency-path"], "action_path") {
			t.Errorf("setup-go's cache-dependency-path %q is outside the workspace: it caches nothing", s.With["cache-dependency-path"])
		}
		if strings.HasPrefix(s.Uses, "actions/cache") && strings.Contains(s.With["key"], "steps.gosum.outputs.sum") {
			keyed = true
		}
		if strings.Contains(s.Run, "ci/fetch-release") && s.Env["CLASSPROOF_REPOSITORY"] != "${{ github.action_repository }}" {
			t.Errorf("the action's fetch step ignores the repository it is used from: %+v", s.Env)
		}
	}
	if !keyed {
		t.Error("the action caches no Go modules keyed by its go.sum")
	}
}
