package gate

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/classproof/classproof/helpers/report"
)

// Rehearse checks a lane's dry run against the required-spec list: the lane's own command (ci/lane
// LANE --dry-run), run on a machine that is not the lane's OS, must select exactly the specs the
// list names for that lane. It is how the darwin lane's label filter and command line are tested
// where no Mac is: nothing runs, so nothing about macOS behaviour is claimed.
func Rehearse(dir string, req *Required) (string, error) {
	var meta report.Meta
	b, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		return "", fmt.Errorf("rehearsal: %w", err)
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		return "", fmt.Errorf("rehearsal: %s: %w", filepath.Join(dir, "run.json"), err)
	}
	if !meta.DryRun {
		return "", fmt.Errorf("rehearsal: %s is not a dry run (run.json dry_run is false)", dir)
	}
	run, err := report.Load(filepath.Join(dir, "report.json"), meta.Filter)
	if err != nil {
		return "", fmt.Errorf("rehearsal: %w", err)
	}
	selected := map[string]bool{}
	for _, s := range run.Specs {
		if !s.Filtered {
			selected[s.Name] = true
		}
	}
	want := set(req, meta.Lane)
	var diff []string
	for name := range want {
		if !selected[name] {
			diff = append(diff, "  not selected: "+name)
		}
	}
	for name := range selected {
		if !want[name] {
			diff = append(diff, "  selected, not required: "+name)
		}
	}
	if len(want) == 0 {
		diff = append(diff, "  the required list names no spec for lane "+meta.Lane)
	}
	if len(diff) > 0 {
		return "", Disagreement(fmt.Sprintf("rehearsal of lane %s (filter %q): the dry run and the required list disagree:\n%s",
			meta.Lane, meta.Filter, strings.Join(diff, "\n")))
	}
	return fmt.Sprintf("rehearsal of lane %s: its command selected %d specs (filter %q), as the required list names; dry run on %s/%s, nothing executed",
		meta.Lane, len(selected), meta.Filter, meta.GOOS, meta.GOARCH), nil
}

// Disagreement is a required-spec list and the suites (or a lane's dry run) that disagree: the
// answer to a check, told apart from a check that could not be made (an unreadable list or run).
type Disagreement string

func (d Disagreement) Error() string { return string(d) }
