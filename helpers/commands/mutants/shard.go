package mutants

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/classproof/classproof/helpers/base/files"
)

// Shard is share K of N of a matrix's cells: the cells whose place in the full table, counted
// from 0, is K-1 modulo N. Dealt round-robin, each share gets a like mix of variants and lanes
// (a lane's cells cost alike, a variant's do not), whatever the order the variants come in.
type Shard struct{ K, Of int }

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.K, s.Of) }

// ParseShard reads K/N (1 <= K <= N).
func ParseShard(v string) (Shard, error) {
	k, n, ok := strings.Cut(v, "/")
	ki, kerr := strconv.Atoi(k)
	ni, nerr := strconv.Atoi(n)
	if !ok || kerr != nil || nerr != nil || ni < 1 || ki < 1 || ki > ni {
		return Shard{}, fmt.Errorf("--shard %q: expected K/N with 1 <= K <= N, e.g. 2/3", v)
	}
	return Shard{ki, ni}, nil
}

func (s Shard) holds(index int) bool { return index%s.Of == s.K-1 }

func (s Shard) pick(all []job) []job {
	var out []job
	for _, j := range all {
		if s.holds(j.Index) {
			out = append(out, j)
		}
	}
	return out
}

// Plan is what every part of one matrix shares: parts that differ in any of it are from
// different matrices, and are not merged.
type Plan struct {
	GOOS        string   `json:"goos"`
	Var         string   `json:"var"`
	Targets     []string `json:"targets"`
	Values      []Value  `json:"values"`
	UntilCaught bool     `json:"until_caught,omitempty"`
	Focus       string   `json:"focus,omitempty"`
	// First is the first specs' list the shares ran with (its specs only say where to look
	// first, but shares that looked differently are not one run).
	First []FirstSpec `json:"first,omitempty"`
	// NoProbe: the shares ran every fault row's lanes whole (Options.NoProbe).
	NoProbe bool `json:"no_probe,omitempty"`
}

func (o Options) plan() Plan {
	p := Plan{GOOS: runtime.GOOS, Var: o.Var, Values: o.Values, UntilCaught: o.UntilCaught, Focus: o.Focus, First: o.First, NoProbe: o.NoProbe}
	for _, t := range o.Targets {
		p.Targets = append(p.Targets, t.Ref)
	}
	return p
}

// Part is what a shard writes: its baseline (each shard runs its own, on its own runner) and
// its cells, each with its place in the full table.
type Part struct {
	Shard    int        `json:"shard"`
	Of       int        `json:"of"`
	Plan     Plan       `json:"plan"`
	Baseline []Cell     `json:"baseline"`
	Cells    []PartCell `json:"cells"`
	Wall     float64    `json:"wall_s"`
	Jobs     int        `json:"jobs"`
}

// PartCell is one cell of a part and its place in the full table.
type PartCell struct {
	Index   int    `json:"index"`
	Variant string `json:"variant"`
	Cell
}

// PartFile is the name a shard's part is written under, in its --out folder.
func PartFile(s Shard) string { return fmt.Sprintf("part-%d-of-%d.json", s.K, s.Of) }

// RunShard runs the baseline and o.Shard's share of the cells, and writes the part to
// o.OutDir/PartFile. It says nothing of whether a variant is caught: its other lanes may be in
// another share; Merge decides.
func RunShard(ctx context.Context, o Options) (*Part, error) {
	if o.Shard.Of < 1 {
		return nil, errors.New("RunShard needs a shard (K/N)")
	}
	if err := removeOld(o.OutDir, PartFile(o.Shard)); err != nil {
		return nil, err
	}
	began := time.Now()
	run, _ := plan(o.Values, runtime.GOOS)
	o.probe, o.sites = !o.NoProbe && probing(run), !o.NoProbe && recordingSites(run)
	base, err := baseline(ctx, o)
	if err != nil {
		return nil, err
	}
	o.refs = ranFirst(base)
	if o.firstFocus, err = firstSpecs(ctx, o, base); err != nil {
		return nil, err
	}
	mine := o.Shard.pick(jobs(run, len(o.Targets)))
	got, err := runJobs(ctx, o, mine, cell)
	if err != nil {
		return nil, err
	}
	p := &Part{Shard: o.Shard.K, Of: o.Shard.Of, Plan: o.plan(), Baseline: base, Jobs: max(o.Jobs, 1)}
	for i, j := range mine {
		p.Cells = append(p.Cells, PartCell{Index: j.Index, Variant: j.Value, Cell: got[i]})
	}
	p.Wall = time.Since(began).Seconds()
	b, _ := json.MarshalIndent(p, "", "  ")
	return p, files.WriteFile(filepath.Join(o.OutDir, PartFile(o.Shard)), b, 0o644)
}

// maxPart bounds a part read back: a CI artifact, written by a shard on another runner.
const maxPart = 64 << 20

// ReadPart reads a part file, naming it in errors.
func ReadPart(path string) (*Part, error) {
	b, err := files.ReadClaim(path, maxPart)
	if err != nil {
		return nil, fmt.Errorf("part %s: %w", path, err)
	}
	var p Part
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("part %s: not a part of a kill matrix (%v)", path, err)
	}
	if p.Of < 1 || p.Shard < 1 || p.Shard > p.Of {
		return nil, fmt.Errorf("part %s: says it is share %d of %d; expected 1 <= K <= N", path, p.Shard, p.Of)
	}
	return &p, nil
}

// Merge joins every part of one matrix, named by path, into the matrix one run would have
// written (each cell in its place; the baseline of share 1; the wall of the longest share), and
// writes it to dir. It refuses, naming the parts: a missing or duplicate share, parts of
// different matrices (shares of another N, another plan), a part that holds other cells than
// its share, or a baseline that did not pass.
func Merge(dir string, paths []string) (*Matrix, error) {
	if len(paths) == 0 {
		return nil, errors.New("no parts to merge")
	}
	parts := make([]*Part, len(paths))
	for i, path := range paths {
		p, err := ReadPart(path)
		if err != nil {
			return nil, err
		}
		parts[i] = p
	}
	if err := oneMatrix(paths, parts); err != nil {
		return nil, err
	}
	first := parts[0]
	pl := first.Plan
	run, leftOut := plan(pl.Values, pl.GOOS)
	all := jobs(run, len(pl.Targets))
	cells := make([]Cell, len(all))
	var base []Cell
	var wall float64
	for i, p := range parts {
		share := Shard{p.Shard, p.Of}
		want := share.pick(all)
		if len(p.Cells) != len(want) {
			return nil, fmt.Errorf("part %s holds %d cells; share %s of this matrix has %d", paths[i], len(p.Cells), share, len(want))
		}
		for n, c := range p.Cells {
			if c.Index != want[n].Index || c.Variant != want[n].Value || c.Target != pl.Targets[want[n].Target] {
				return nil, fmt.Errorf("part %s: cell %d claims place %d (%s on %s); share %s holds place %d (%s on %s) there", paths[i], n+1, c.Index, c.Variant, c.Target, share, want[n].Index, want[n].Value, pl.Targets[want[n].Target])
			}
			cells[c.Index] = c.Cell
		}
		if p.Shard == 1 {
			base = p.Baseline
		}
		wall = max(wall, p.Wall)
	}
	merged := assemble(base, run, leftOut, len(pl.Targets), cells)
	merged.Wall, merged.Jobs, merged.UntilCaught, merged.Shards, merged.Focus = wall, first.Jobs, pl.UntilCaught, first.Of, pl.Focus
	if err := removeOld(dir, "matrix.json", "matrix.md"); err != nil {
		return nil, err
	}
	return merged, write(dir, merged)
}

// oneMatrix says why parts are not every share of one matrix, naming the files; nil when they are.
func oneMatrix(paths []string, parts []*Part) error {
	first, firstPath := parts[0], paths[0]
	byShard := map[int]string{}
	for i, p := range parts {
		switch {
		case p.Of != first.Of:
			return fmt.Errorf("part %s is share %d of %d, part %s of %d: not one matrix's parts", paths[i], p.Shard, p.Of, firstPath, first.Of)
		case !reflect.DeepEqual(p.Plan, first.Plan):
			return fmt.Errorf("part %s and part %s are of different matrices (they differ in %s)", paths[i], firstPath, planDiff(p.Plan, first.Plan))
		case byShard[p.Shard] != "":
			return fmt.Errorf("share %d of %d twice: %s and %s", p.Shard, p.Of, byShard[p.Shard], paths[i])
		}
		byShard[p.Shard] = paths[i]
		for _, b := range p.Baseline {
			if !b.Passed {
				return fmt.Errorf("part %s: the reference build failed on %s (%s): its cells prove nothing", paths[i], b.Target, b.Why)
			}
		}
	}
	var missing []string
	for k := 1; k <= first.Of; k++ {
		if byShard[k] == "" {
			missing = append(missing, fmt.Sprintf("%d/%d", k, first.Of))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("share %s missing: got %d of %d parts (%s); run each 'classproof mutants --shard K/%d' and merge every part", strings.Join(missing, ", "), len(parts), first.Of, strings.Join(sorted(byShard), ", "), first.Of)
	}
	return nil
}

func sorted(byShard map[int]string) []string {
	var out []string
	for k, path := range byShard {
		out = append(out, fmt.Sprintf("%d from %s", k, path))
	}
	sort.Strings(out)
	return out
}

// planDiff names the first field two plans differ in.
func planDiff(a, b Plan) string {
	av, bv := reflect.ValueOf(a), reflect.ValueOf(b)
	for i := 0; i < av.NumField(); i++ {
		if !reflect.DeepEqual(av.Field(i).Interface(), bv.Field(i).Interface()) {
			return fmt.Sprintf("%s: %v against %v", av.Type().Field(i).Tag.Get("json"), av.Field(i).Interface(), bv.Field(i).Interface())
		}
	}
	return "nothing"
}
