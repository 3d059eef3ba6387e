package proc

import (
	"os"
	"path/filepath"
	"testing"
)

// One report file named three ways (as handed, with a /./, through a symlink to its folder) is
// one key; another file in the same folder is another.
func TestAReportNamedAnotherWayIsTheSameReport(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "report-1.json")
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	want := ReportKey(report)
	for _, other := range []string{dir + "/./report-1.json", filepath.Join(link, "report-1.json"), dir + "//report-1.json"} {
		if got := ReportKey(other); got != want {
			t.Errorf("ReportKey(%q) = %q; want %q, the key of %s", other, got, want, report)
		}
	}
	if got := ReportKey(filepath.Join(dir, "report-2.json")); got == want {
		t.Errorf("report-2.json has the key of report-1.json: %q", got)
	}
}
