package mutants

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestParseShard(t *testing.T) {
	if s, err := ParseShard("2/3"); err != nil || s != (Shard{2, 3}) {
		t.Errorf("2/3: %v, %v", s, err)
	}
	for _, bad := range []string{"", "3", "0/3", "4/3", "1/0", "a/b", "-1/3", "1/3/4"} {
		if _, err := ParseShard(bad); err == nil || !strings.Contains(err.Error(), "expected K/N") {
			t.Errorf("%q: %v, want a K/N error", bad, err)
		}
	}
}

// Every cell is in exactly one share, whatever N, and the shares differ in size by one at most.
func TestSharesCoverEveryCellOnce(t *testing.T) {
	for _, variants := range []int{1, 5, 32} {
		run := make([]Value, variants)
		all := jobs(run, 2)
		for n := 1; n <= 7; n++ {
			seen := map[int]int{}
			least, most := len(all), 0
			for k := 1; k <= n; k++ {
				share := Shard{k, n}.pick(all)
				least, most = min(least, len(share)), max(most, len(share))
				for _, j := range share {
					seen[j.Index]++
				}
			}
			for _, j := range all {
				if seen[j.Index] != 1 {
					t.Fatalf("%d cells, %d shares: cell %d is in %d shares", len(all), n, j.Index, seen[j.Index])
				}
			}
			if most-least > 1 {
				t.Errorf("%d cells, %d shares: shares of %d to %d cells", len(all), n, least, most)
			}
		}
	}
}

// parts writes the parts of a made-up matrix of 3 variants on 2 targets, split n ways, and the
// matrix one run would have made of the same cells.
func parts(t *testing.T, n int) ([]string, *Matrix) {
	t.Helper()
	values := []Value{{Name: "a", Breaks: "x"}, {Name: "b", Breaks: "y"}, {Name: "c", Breaks: "z"}}
	pl := Plan{GOOS: runtime.GOOS, Var: "variant", Targets: []string{"t1", "t2"}, Values: values}
	base := []Cell{{Target: "t1", Lane: "l1", Passed: true}, {Target: "t2", Lane: "l2", Passed: true}}
	all := jobs(values, 2)
	cells := make([]Cell, len(all))
	for _, j := range all {
		c := Cell{Target: pl.Targets[j.Target], Lane: base[j.Target].Lane, Timing: Timing{Total: float64(j.Index)}}
		if j.Index%3 != 1 { // b on t1 and c on t2 are not caught; every variant is on one lane
			c.CaughtBy = []string{fmt.Sprintf("spec %d", j.Index)}
		} else {
			c.Passed = true
		}
		cells[j.Index] = c
	}
	dir := t.TempDir()
	var paths []string
	for k := 1; k <= n; k++ {
		p := Part{Shard: k, Of: n, Plan: pl, Baseline: base, Jobs: 2, Wall: float64(10 * k)}
		for _, j := range (Shard{k, n}).pick(all) {
			p.Cells = append(p.Cells, PartCell{Index: j.Index, Variant: j.Value, Cell: cells[j.Index]})
		}
		paths = append(paths, writePart(t, dir, p))
	}
	run, leftOut := plan(values, runtime.GOOS)
	return paths, assemble(base, run, leftOut, 2, cells)
}

func writePart(t *testing.T, dir string, p Part) string {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := os.MkdirTemp(dir, "shard")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(sub, PartFile(Shard{p.Shard, p.Of}))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestMergeJoinsThePartsInTheirPlaces(t *testing.T) {
	for _, n := range []int{1, 2, 3, 6} {
		paths, want := parts(t, n)
		// The order parts are named in does not matter.
		for i, j := 0, len(paths)-1; i < j; i, j = i+1, j-1 {
			paths[i], paths[j] = paths[j], paths[i]
		}
		out := t.TempDir()
		got, err := Merge(out, paths)
		if err != nil {
			t.Fatalf("%d parts: %v", n, err)
		}
		if err := SameCells(want, got); err != nil {
			t.Errorf("%d parts merged: %v", n, err)
		}
		if got.Shards != n || got.Wall != float64(10*n) || !got.OK {
			t.Errorf("%d parts: shares %d, wall %v (the longest part's), ok %v", n, got.Shards, got.Wall, got.OK)
		}
		if b, err := os.ReadFile(filepath.Join(out, "matrix.md")); err != nil || string(b) != Markdown(got) {
			t.Errorf("%d parts: matrix.md is not the merged matrix (%v)", n, err)
		}
	}
}

func TestMergeRefusesPartsThatAreNotOneMatrix(t *testing.T) {
	paths, _ := parts(t, 3)
	other, _ := parts(t, 2)
	dir := t.TempDir()
	read := func(path string) Part {
		p, err := ReadPart(path)
		if err != nil {
			t.Fatal(err)
		}
		return *p
	}
	planB := read(paths[1])
	planB.Plan.Var = "flavour"
	lying := read(paths[1])
	lying.Cells[0].Index = 0
	failed := read(paths[1])
	failed.Baseline = []Cell{{Target: "t1", Why: "the reference broke"}}
	junk := filepath.Join(dir, "junk.json")
	if err := os.WriteFile(junk, []byte("<html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		paths []string
		want  string
	}{
		"a missing share":        {[]string{paths[0], paths[2]}, "share 2/3 missing: got 2 of 3 parts (1 from " + paths[0] + ", 3 from " + paths[2] + ")"},
		"a share twice":          {[]string{paths[0], paths[1], paths[1], paths[2]}, "share 2 of 3 twice: " + paths[1] + " and " + paths[1]},
		"another N":              {[]string{paths[0], other[1]}, "part " + other[1] + " is share 2 of 2, part " + paths[0] + " of 3"},
		"another plan":           {[]string{paths[0], writePart(t, dir, planB), paths[2]}, "are of different matrices (they differ in var: flavour against variant)"},
		"cells not of its share": {[]string{paths[0], writePart(t, dir, lying), paths[2]}, "cell 1 claims place 0 (a on t2); share 2/3 holds place 1 (a on t2) there"},
		"a failed baseline":      {[]string{paths[0], writePart(t, dir, failed), paths[2]}, "the reference build failed on t1 (the reference broke)"},
		"not a part":             {[]string{paths[0], junk}, "part " + junk + ": not a part of a kill matrix"},
		"nothing":                {nil, "no parts to merge"},
	} {
		out := t.TempDir()
		_, err := Merge(out, c.paths)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want an error with %q", name, err, c.want)
		}
		if _, err := os.Stat(filepath.Join(out, "matrix.json")); err == nil {
			t.Errorf("%s: a refused merge wrote matrix.json", name)
		}
	}
}

// Until-caught agrees with the full table when each lane is caught where the full table catches
// it, by a spec the full table lists; anything else is named.
func TestCaughtAlike(t *testing.T) {
	full := &Matrix{Rows: []Row{{Value: Value{Name: "a"}, Cells: []Cell{{Lane: "l1", CaughtBy: []string{"s1", "s2"}}, {Lane: "l2"}}}}}
	until := func(l1, l2 []string) *Matrix {
		return &Matrix{Rows: []Row{{Value: Value{Name: "a"}, Cells: []Cell{{Lane: "l1", CaughtBy: l1}, {Lane: "l2", CaughtBy: l2}}}}}
	}
	if err := CaughtAlike(full, until([]string{"s2"}, nil)); err != nil {
		t.Errorf("agreeing matrices: %v", err)
	}
	for want, u := range map[string]*Matrix{
		"a on l1: caught by 2 specs in the full table, by 0 until caught":     until(nil, nil),
		"a on l2: caught by 0 specs in the full table, by 1 until caught":     until([]string{"s1"}, []string{"s1"}),
		`a on l1: "s3" stopped the lane, but the full table does not list it`: until([]string{"s3"}, nil),
		"1 rows against 0": {},
	} {
		if err := CaughtAlike(full, u); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v; want an error with %q", err, want)
		}
	}
}

// Two runs of one matrix agree when their verdicts do, whatever their timings and messages.
func TestSameCellsComparesVerdictsNotTimings(t *testing.T) {
	m := func(caught []string, broken []string, why string, total float64) *Matrix {
		c := Cell{Target: "t1", Lane: "l1", CaughtBy: caught, Broken: broken, Why: why, Timing: Timing{Total: total}}
		return &Matrix{OK: len(caught) > 0, Baseline: []Cell{{Target: "t1", Lane: "l1", Passed: true}},
			Rows: []Row{{Value: Value{Name: "a"}, Cells: []Cell{c}, Caught: len(caught) > 0}}}
	}
	if err := SameCells(m([]string{"s1"}, nil, "pid 10", 3), m([]string{"s1"}, nil, "pid 11", 9)); err != nil {
		t.Errorf("the same verdicts: %v", err)
	}
	for name, other := range map[string]*Matrix{
		"another catching spec": m([]string{"s2"}, nil, "", 0),
		"one more broken setup": m([]string{"s1"}, []string{"BeforeEach"}, "", 0),
		"not caught":            m(nil, nil, "", 0),
	} {
		if err := SameCells(m([]string{"s1"}, nil, "", 0), other); err == nil || !strings.Contains(err.Error(), "row 1 (a) differs") {
			t.Errorf("%s: %v; want row 1 (a) named", name, err)
		}
	}
}
