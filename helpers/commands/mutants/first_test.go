package mutants

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/classproof/classproof/helpers/gate"
	"github.com/classproof/classproof/helpers/runner"
)

func caught(target, lane string, by ...string) Cell {
	return Cell{Target: target, Lane: lane, CaughtBy: by}
}

// The cover takes the spec that caught most variants first, and only as many as it needs:
// here "a" is v1's and v2's, "c" v3's; "b" (v1 only) and "d" (v3 only) are not needed. A variant
// a lane did not catch has no first spec there.
func TestCoverPicksFewSpecsThatCatchEveryCaughtVariant(t *testing.T) {
	m := &Matrix{Rows: []Row{
		{Value: Value{Name: "v1"}, Cells: []Cell{caught("T", "idle", "a", "b"), caught("U", "ignore")}},
		{Value: Value{Name: "v2"}, Cells: []Cell{caught("T", "idle", "a"), caught("U", "ignore", "x")}},
		{Value: Value{Name: "v3"}, Cells: []Cell{caught("T", "idle", "c", "d"), caught("U", "ignore")}},
		{Value: Value{Name: "v4"}, Cells: []Cell{caught("T", "idle"), caught("U", "ignore")}},
	}}
	got := Cover(m)
	want := []FirstSpec{{"T", "idle", "v1", "a"}, {"T", "idle", "v2", "a"}, {"T", "idle", "v3", "c"}, {"U", "ignore", "v2", "x"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Cover = %v, want %v", got, want)
	}
	back, err := ParseFirst("first.tsv", FormatFirst(got))
	if err != nil || !reflect.DeepEqual(back, want) {
		t.Fatalf("ParseFirst(FormatFirst) = %v, %v; want %v", back, err, want)
	}
}

func TestParseFirstNamesTheFileAndLine(t *testing.T) {
	for _, bad := range []string{"T\tidle\tv\n", "T\tidle\tv\ta\tb\n", "\tidle\tv\ta\n", "T\tidle\t\ta\n", "# only a comment\n", ""} {
		_, err := ParseFirst("x.tsv", []byte(bad))
		if err == nil || !strings.Contains(err.Error(), "x.tsv") {
			t.Errorf("%q: %v, want an error naming x.tsv", bad, err)
		}
	}
	if _, err := ParseFirst("x.tsv", []byte("ok\tlane\tv\tspec\nT idle v a\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("a line without tabs: %v, want line 2 named", err)
	}
}

// Ginkgo matches a focus against the suite's description, a space and the spec's full text
// (ginkgo/v2 internal/focus.go): the focus takes the named specs, with their regexp characters,
// and not a spec whose text only starts or ends like one of them.
func TestFocusOfSelectsTheNamedSpecs(t *testing.T) {
	named := []string{"cpuclass on Linux, idle mode (SCHED_IDLE + I/O idle) starts it", "resolve: the config key loses no update when 8 --set calls run at once"}
	re := regexp.MustCompile(runner.FocusOn(named))
	for _, s := range named {
		if !re.MatchString("cpuclass " + s) {
			t.Errorf("%q is not selected", s)
		}
	}
	for _, s := range []string{named[0] + " and more", "pre" + named[1], "cpuclass on Linux, idle mode xSCHED_IDLE + I/O idle) starts it", "resolve: the config key"} {
		if re.MatchString("suite " + s) {
			t.Errorf("%q is selected", s)
		}
	}
}

// An until-caught matrix that left a cell out (its variant caught on the lane before) agrees
// with the full table when the row is caught in both; a row caught in one only does not.
func TestCaughtAlikeComparesALeftOutCellByItsRow(t *testing.T) {
	full := &Matrix{Rows: []Row{{Value: Value{Name: "v"}, Caught: true, Cells: []Cell{caught("T", "idle", "a", "b"), caught("U", "ignore")}}}}
	until := &Matrix{Rows: []Row{{Value: Value{Name: "v"}, Caught: true, Cells: []Cell{caught("T", "idle", "b"), {Target: "U", Lane: "ignore", NotRun: "caught on idle first"}}}}}
	if err := CaughtAlike(full, until); err != nil {
		t.Fatalf("agreeing matrices: %v", err)
	}
	until.Rows[0].Caught, until.Rows[0].Cells[0].CaughtBy = false, nil
	if err := CaughtAlike(full, until); err == nil {
		t.Fatalf("a row caught only in the full table: no error")
	}
	if s := summary(Cell{NotRun: "caught on idle first"}, true, "noclass"); s != "not run: caught on idle first" {
		t.Errorf("summary of a cell left out: %q", s)
	}
}

// The kit's own list names specs that exist in the lane it names: a spec renamed or removed
// would make every until-caught run check its first specs, find one missing and run without
// them, slowly and quietly.
func TestTheKitsFirstSpecsAreRequiredInTheirLanes(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	b, err := os.ReadFile(filepath.Join(root, "ci", "mutants-first.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	first, err := ParseFirst("ci/mutants-first.tsv", b)
	if err != nil {
		t.Fatal(err)
	}
	req, err := gate.LoadRequired(filepath.Join(root, "ci", "required-specs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range first {
		p := req.Lanes[f.Lane]
		if p == nil {
			t.Errorf("ci/mutants-first.tsv: lane %q is not in ci/required-specs.yaml", f.Lane)
			continue
		}
		found := false
		for _, s := range p.Specs {
			found = found || s == f.Spec
		}
		if !found {
			t.Errorf("ci/mutants-first.tsv: %q is not a spec of lane %s (ci/required-specs.yaml); remake the list with make mutants-first", f.Spec, f.Lane)
		}
	}
}
