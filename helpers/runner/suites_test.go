package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The suites' reports, run at once, are joined in the suites' order; a suite without its report
// leaves the run without one (a lane missing a suite's specs must not read as whole).
func TestMergeReportsJoinsInOrderOrWritesNothing(t *testing.T) {
	suite := func(dir, name string, withReport bool) string {
		d := filepath.Join(dir, "suites", name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if withReport {
			os.WriteFile(filepath.Join(d, "report.json"), []byte(`[{"SuiteDescription":"`+name+`"}]`), 0o644)
			os.WriteFile(filepath.Join(d, "junit.xml"), []byte(`<testsuites tests="1"><testsuite name="`+name+`" tests="1"></testsuite></testsuites>`), 0o644)
		}
		return d
	}
	out := t.TempDir()
	dirs := []string{suite(out, "1-compat", true), suite(out, "2-cpuclass", true), suite(out, "3-resolve", true)}
	if err := mergeReports(dirs, out); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(out, "report.json"))
	if i, j, k := strings.Index(string(b), "1-compat"), strings.Index(string(b), "2-cpuclass"), strings.Index(string(b), "3-resolve"); i < 0 || !(i < j && j < k) {
		t.Errorf("merged report.json is not the three suites in order:\n%s", b)
	}
	if x, _ := os.ReadFile(filepath.Join(out, "junit.xml")); strings.Count(string(x), "<testsuite ") != 3 || !strings.Contains(string(x), `<testsuites tests="3"`) {
		t.Errorf("merged junit.xml does not hold the three suites:\n%s", x)
	}

	out = t.TempDir()
	dirs = []string{suite(out, "1-compat", true), suite(out, "2-cpuclass", false)}
	if err := mergeReports(dirs, out); err == nil {
		t.Error("a suite without its report was merged over")
	}
	if _, err := os.Stat(filepath.Join(out, "report.json")); err == nil {
		t.Error("a report.json was written without every suite's: a lane missing specs would read as whole")
	}
}
