package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/onsi/ginkgo/v2/types"
)

// FuzzFromReports: a report file is written by a test binary the launcher's processes could have
// touched. Whatever it holds, reading it never panics, every spec lands in exactly one bucket, a
// spec counts as passed only when Ginkgo said passed and it was selected and started, and a
// suite that did not succeed is named.
func FuzzFromReports(f *testing.F) {
	seeds, err := filepath.Glob("testdata/*.json")
	if err != nil || len(seeds) == 0 {
		f.Fatalf("no recorded reports to seed from: %v", err)
	}
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, "linux && !darwin")
	}
	f.Add([]byte(`[{"SuiteSucceeded":false,"SpecReports":[{"LeafNodeType":"It","State":"passed"}]}]`), "")
	f.Fuzz(func(t *testing.T, b []byte, filter string) {
		var reports []types.Report
		if json.Unmarshal(b, &reports) != nil {
			return
		}
		r, err := FromReports(reports, filter)
		if err != nil {
			return
		}
		c := r.Count()
		if sum := c.Ran + c.Skipped + c.Filtered + c.NotRun + c.Pending; sum != len(r.Specs) || c.Ran != c.Passed+c.Failed {
			t.Fatalf("%d specs counted as %+v", len(r.Specs), c)
		}
		for _, s := range r.Specs {
			if s.Outcome() == Passed && (s.State != "passed" || s.Filtered || s.NotRun) {
				t.Fatalf("counted passed: %+v", s)
			}
		}
		failed := 0
		for _, rep := range reports {
			if !rep.SuiteSucceeded {
				failed++
			}
		}
		if len(r.FailedSuites) != failed {
			t.Fatalf("%d suites did not succeed, %d named", failed, len(r.FailedSuites))
		}
		_ = r.Summary(filter)
	})
}
