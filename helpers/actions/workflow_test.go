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
	ContinueOnError bool              `yaml:"continue-on-error"`
	With            map[string]string `yaml:"with"`
}

func laneSteps(t *testing.T) []step {
	t.Helper()
	b, err := os.ReadFile("../../.github/workflows/lanes.yml")
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
	return wf.Jobs["lane"].Steps
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
	if record > lane && !strings.Contains(steps[record].If, "always()") {
		t.Errorf("ps is recorded after the lane (step %d after %d) without always(): a red lane loses it", record, lane)
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
