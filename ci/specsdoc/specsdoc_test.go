package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/classproof/classproof/helpers/base/label"
)

const tmpl = "# specs\n\n{{seeds}}\n\n{{suite \"cpuclass\"}}\n"

// catalogue is two specs of one It on two platforms and a convention, as a dry run gives them.
func catalogue() []spec {
	return []spec{
		{Suite: "cpuclass", Section: "cpuclass", Group: "suites/cpuclass/a_test.go:10", Name: "cpuclass on macOS starts the direct harness",
			Title: "starts the direct harness", Labels: []string{label.Darwin, label.SeedBackground}},
		{Suite: "cpuclass", Section: "cpuclass", Group: "suites/cpuclass/a_test.go:10", Name: "cpuclass on Linux starts the direct harness",
			Title: "starts the direct harness", Labels: []string{label.LinuxIdle, label.SeedBackground}},
		{Suite: "cpuclass", Section: "cpuclass", Group: "suites/cpuclass/a_test.go:20", Name: "cpuclass folds case",
			Title: "folds case", Labels: []string{label.ConvFoldCase}},
	}
}

func made(t *testing.T, specs []spec) string {
	t.Helper()
	rows := rowsOf(specs)
	if err := check(rows, nil); err != nil {
		t.Fatal(err)
	}
	doc, err := render(tmpl, inputs{Rows: rows, Lanes: map[string][]string{specs[0].Name: {"darwin"}}, Catches: map[string][]string{specs[1].Name: {"noclass"}}})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestRowsFoldPlatformsAndSayKind(t *testing.T) {
	doc := made(t, catalogue())
	for _, want := range []string{
		"| starts the direct harness | promise `seed-background` \"On macOS each session's harness now starts with PRIO_DARWIN_BG\" |  | darwin | `noclass` |  |",
		"| folds case | convention `conv-fold-case` (`conventions.fold_case`) |",
		"| `seed-background` | \"On macOS each session's harness now starts with PRIO_DARWIN_BG\" |",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("the catalogue lacks %q:\n%s", want, doc)
		}
	}
}

// TestCheckFailsWhenATitleChanges is make static's check: a spec renamed since the file was made
// leaves the file stale, and the check names the line.
func TestCheckFailsWhenATitleChanges(t *testing.T) {
	old := made(t, catalogue())
	specs := catalogue()
	specs[2].Title = "folds case and spaces"
	d := firstDifference(old, made(t, specs))
	if !strings.Contains(d, "folds case and spaces") || !strings.HasPrefix(d, "line ") {
		t.Errorf("a renamed spec: got %q, want the line that differs", d)
	}
	if d := firstDifference(old, made(t, catalogue())); d != "" {
		t.Errorf("the same suites: got %q, want no difference", d)
	}
}

func TestASpecWithoutSeedOrConventionIsRefused(t *testing.T) {
	specs := catalogue()
	specs[2].Labels = []string{label.NeedsConfig}
	err := check(rowsOf(specs), nil)
	if err == nil || !strings.Contains(err.Error(), `spec "cpuclass folds case" (suites/cpuclass/a_test.go:20) has no seed label`) {
		t.Errorf("got %v, want the spec without a seed or convention label named", err)
	}
	specs[2].Labels = []string{"seed-nowhere"}
	if err := check(rowsOf(specs), nil); err == nil || !strings.Contains(err.Error(), `label "seed-nowhere" is no seed sentence`) {
		t.Errorf("got %v, want an unknown seed key named", err)
	}
}

func TestANoteMustNameARow(t *testing.T) {
	rows := rowsOf(catalogue())
	if err := check(rows, map[string]string{"cpuclass | folds case": "ok"}); err != nil {
		t.Errorf("a note on a row: %v", err)
	}
	if err := check(rows, map[string]string{"cpuclass | folds all case": "orphan"}); err == nil || !strings.Contains(err.Error(), "names no spec row") {
		t.Errorf("an orphan note: got %v", err)
	}
}

func TestFold(t *testing.T) {
	for in, want := range map[string]string{
		"starts the direct harness at x|starts the hosted harness at x": "starts the direct / hosted harness at x",
		"a b|a b c":   "a b / a b c",
		"one":         "one",
		"x y z|x q z": "x y / q z",
	} {
		if got := fold(strings.Split(in, "|")); got != want {
			t.Errorf("fold(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSpecOfReportFoldsTablesAndPlatforms reads a table entry under a platform's Describe as
// its table's row, with the platform's class said as background's.
func TestSpecOfReportFoldsTablesAndPlatforms(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "suites", "resolve", "x_test.go")
	if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, []byte("Describe(\n\tDescribe(\n\t\tDescribeTable(\"keeps\",\n\t\t\tEntry(\"a row\"),\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	at := func(line int) types.CodeLocation { return types.CodeLocation{FileName: src, LineNumber: line} }
	sr := types.SpecReport{
		ContainerHierarchyTexts:     []string{"resolve: x", "on Linux, ignore mode (class read, not applied)", "keeps it at the control's class"},
		ContainerHierarchyLocations: []types.CodeLocation{at(1), at(2), at(3)},
		ContainerHierarchyLabels:    [][]string{{label.SeedFirstSource}, {label.LinuxIgnore}, {}},
		LeafNodeText:                "a row", LeafNodeLocation: at(4), LeafNodeType: types.NodeTypeIt,
	}
	s := specOfReport("resolve", sr, tableAt(dir))
	want := spec{Suite: "resolve", Section: "resolve: x", Title: "keeps it at background class", Entry: "a row", Group: "suites/resolve/x_test.go:3"}
	if s.Suite != want.Suite || s.Section != want.Section || s.Title != want.Title || s.Entry != want.Entry || s.Group != want.Group {
		t.Errorf("got %+v, want %+v", s, want)
	}
}
