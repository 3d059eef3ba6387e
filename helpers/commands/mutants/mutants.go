// Package mutants runs the suites against every known-broken build of a target (a manifest var
// such as refmux's variant) and says which specs caught each one. A variant counts as caught only
// when a spec failed by its own assertion; a variant that only broke setup is reported as such,
// since a spec that fails for the wrong reason has not caught anything.
//
// CLI side: it must not import the Ginkgo DSL, Gomega, helpers/suite or fixtures/ (ci/layers.rules).
package mutants

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/faults"
	"github.com/classproof/classproof/helpers/base/files"
	"github.com/classproof/classproof/helpers/manifest"
	"github.com/classproof/classproof/helpers/report"
	"github.com/classproof/classproof/helpers/runner"
)

// Options select the matrix.
type Options struct {
	Targets []*manifest.Resolved // the launchers, resolved once by the CLI; each runs every value
	Var     string               // the manifest var that selects the variant
	Values  []Value
	OutDir  string
	Procs   int
	// Deadline ends the whole matrix (--timeout from when it started): every run gets it.
	Deadline time.Time
	Jobs     int // runs side by side (default 1)
	Progress io.Writer
	// UntilCaught stops each variant's lane at its first spec that fails by its own assertion:
	// the gate's yes/no question, answered sooner. A lane whose first failure is not a catch (its
	// setup broke) runs again whole, so a variant is caught exactly when the full table catches it.
	UntilCaught bool
	// Shard runs a deterministic share of the cells and writes a part (Merge joins the parts);
	// the zero Shard runs them all.
	Shard Shard
	// Focus narrows every run to the specs it matches (a Ginkgo focus): the kit's own tests run
	// small matrices with it. A part records it, and parts that differ are not merged.
	Focus string
	// First names, under UntilCaught, the spec each variant tries first on each lane (a full
	// table's first.tsv, read from FirstSource): a variant it catches needs no other spec.
	First       []FirstSpec
	FirstSource string
	firstFocus  map[string]string // by firstKey: the focus on a cell's first spec, once checked
	// NoProbe runs every row's lanes whole; probe runs the reference under faults.Probe
	// (probing), sites has it record the variant sites its specs reach (sites.go). refs are
	// the reference's runs; whole says a cell runs its lane whole, not narrowed.
	NoProbe bool
	probe   bool
	sites   bool
	refs    *references
	whole   bool
}

// Cell is one variant on one target.
type Cell struct {
	Target   string   `json:"target"`
	Lane     string   `json:"lane"`
	CaughtBy []string `json:"caught_by"`
	Broken   []string `json:"broken,omitempty"` // failures outside the spec body (setup)
	Passed   bool     `json:"passed"`           // the whole run passed: not caught here
	// First says a first spec caught it (--until-caught --first); NotRun why the cell did not
	// run (--until-caught: its variant was caught on another lane first).
	First  bool   `json:"first,omitempty"`
	NotRun string `json:"not_run,omitempty"`
	// Why is the first failure's spec and message, or the run's first problem: what a failed
	// baseline is reported with.
	Why    string `json:"why,omitempty"`
	Timing Timing `json:"timing"`
	// NotFired says the cell's injected fault was never called: neither caught nor missed.
	NotFired bool `json:"not_fired,omitempty"`
	// Probed, in a narrowed cell, is how many specs it ran: a fault's, those where the
	// reference's probe saw its call (-1: none, and the cell did not run); a hand-written
	// variant's, those where the reference reached its sites. Calls, in a reference cell run
	// under the probe, names for each class call the specs where it came, and Sites, where it
	// recorded sites, for each site the specs that reached it. Lasting are the calls it saw in
	// the sessions that last the whole suite.
	Probed  int                 `json:"probed,omitempty"`
	Calls   map[string][]string `json:"calls,omitempty"`
	Sites   map[string][]string `json:"sites,omitempty"`
	Lasting []string            `json:"lasting,omitempty"`
}

// Row is one variant across targets.
type Row struct {
	Value  Value  `json:"variant"`
	Cells  []Cell `json:"cells"`
	Caught bool   `json:"caught"`
	// LeftOut says why the variant did not run on this OS; such a row is neither caught nor not.
	LeftOut string `json:"left_out,omitempty"`
}

// Matrix is the result.
type Matrix struct {
	Baseline []Cell  `json:"baseline"`
	Rows     []Row   `json:"rows"`
	OK       bool    `json:"ok"`
	Wall     float64 `json:"wall_s"` // the whole matrix, baseline included (merged: the longest part)
	Jobs     int     `json:"jobs"`
	// UntilCaught says each cell lists only the spec that stopped it, not every catching spec.
	UntilCaught bool `json:"until_caught,omitempty"`
	Shards      int  `json:"shards,omitempty"` // merged from this many parts
	// Focus is the Ginkgo focus every run had: a partial table, said so in matrix.md.
	Focus string `json:"focus,omitempty"`
}

// Kill runs the baseline (the var empty) on every target, then every value on every target,
// o.Jobs runs side by side (each a whole run of every spec of its lane unless o.UntilCaught: the
// full table is the proof that each spec is tied to a promise).
func Kill(ctx context.Context, o Options) (*Matrix, error) {
	if o.Shard.Of != 0 {
		return nil, errors.New("a shard writes a part (RunShard), not a matrix")
	}
	// A matrix in the folder is this run's or none: an earlier one must not be read as the
	// result of a run that was interrupted or failed.
	if err := removeOld(o.OutDir, "matrix.json", "matrix.md", FirstFile); err != nil {
		return nil, err
	}
	began := time.Now()
	run, leftOut := plan(o.Values, runtime.GOOS)
	o.probe, o.sites = !o.NoProbe && probing(run), !o.NoProbe && recordingSites(run)
	var err error
	if o.UntilCaught {
		if o.refs, err = lanesOnly(o); err != nil {
			return nil, err
		}
	} else {
		base, err := baseline(ctx, o)
		if err != nil {
			return &Matrix{Baseline: base, Jobs: max(o.Jobs, 1)}, err
		}
		o.refs = ranFirst(base)
	}
	if o.firstFocus, err = firstSpecs(ctx, o, o.refs.baseline()); err != nil {
		return nil, err
	}
	var got []Cell
	if o.UntilCaught {
		got, err = byRow(ctx, o, run, o.refs.baseline())
	} else {
		got, err = runJobs(ctx, o, jobs(run, len(o.Targets)), cell)
	}
	if err != nil {
		return &Matrix{Baseline: o.refs.baseline(), Jobs: max(o.Jobs, 1)}, err
	}
	m := assemble(o.refs.baseline(), run, leftOut, len(o.Targets), got)
	m.Wall, m.Jobs, m.UntilCaught, m.Focus = time.Since(began).Seconds(), max(o.Jobs, 1), o.UntilCaught, o.Focus
	return m, write(o.OutDir, m)
}

// baseline runs the reference build on every target; a reference that fails ends the matrix.
func baseline(ctx context.Context, o Options) ([]Cell, error) {
	ref := make([]job, len(o.Targets))
	for j := range ref {
		ref[j] = job{Index: -1, Target: j}
	}
	base, err := runJobs(ctx, o, ref, cell)
	if err != nil {
		return nil, err
	}
	for i, c := range base {
		if !c.Passed {
			return base, refFailed(o, o.Targets[i], c)
		}
	}
	return base, nil
}

// assemble makes the matrix from the baseline and every cell, by job index (variant, then
// target): one run's cells and merged parts' alike.
func assemble(base []Cell, run []Value, leftOut []Row, targets int, cells []Cell) *Matrix {
	m := &Matrix{Baseline: base, OK: true}
	for i, v := range run {
		row := Row{Value: v, Cells: cells[i*targets : (i+1)*targets]}
		for _, c := range row.Cells {
			row.Caught = row.Caught || len(c.CaughtBy) > 0
		}
		row.LeftOut = neverFired(row.Cells)
		m.OK = m.OK && (row.Caught || row.LeftOut != "")
		m.Rows = append(m.Rows, row)
	}
	m.Rows = append(m.Rows, leftOut...)
	return m
}

func removeOld(dir string, names ...string) error {
	for _, f := range names {
		if err := os.Remove(filepath.Join(dir, f)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// plan splits the values into those that run on goos and the rows of those left out there.
func plan(values []Value, goos string) (run []Value, leftOut []Row) {
	for _, v := range values {
		if why := v.meansNothingOn(goos); why != "" {
			leftOut = append(leftOut, Row{Value: v, LeftOut: fmt.Sprintf("left out on %s: %s", goos, why)})
			continue
		}
		run = append(run, v)
	}
	return run, leftOut
}

// Counts are the matrix's rows by verdict.
func (m *Matrix) Counts() (caught, notCaught, leftOut int) {
	for _, r := range m.Rows {
		switch {
		case r.LeftOut != "":
			leftOut++
		case r.Caught:
			caught++
		default:
			notCaught++
		}
	}
	return caught, notCaught, leftOut
}

// attempt is one run of value on t; sub, when set, is a folder of its own under the cell's (a
// run focused on a first spec beside the cell's run of its lane).
func attempt(ctx context.Context, o Options, t *manifest.Resolved, value string, failFast bool, sub string) (Cell, *report.Run, error) {
	name := value
	if name == "" {
		name = "reference"
	}
	dir := filepath.Join(o.OutDir, strings.TrimSuffix(filepath.Base(strings.TrimPrefix(t.Ref, manifest.EmbeddedPrefix)), ".yaml"), name, sub)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Cell{}, nil, err
	}
	logf, err := os.Create(filepath.Join(dir, "ginkgo.log"))
	if err != nil {
		return Cell{}, nil, err
	}
	defer logf.Close()
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, "classproof mutants: %s on %s\n", name, t.Ref)
	}
	fault, build := splitFault(value)
	narrowed, focusBefore := false, o.Focus
	if focus, skip, ok := o.narrow(t, value); ok && sub == "" {
		if skip != nil {
			return *skip, nil, nil
		}
		o.Focus, narrowed = focus, true
	}
	if value == "" && sub == "" && o.probe {
		fault = faults.Probe
	}
	// Every run of a matrix that records sites has the launcher record them, the variants' too:
	// a launcher that sees the variable behaves alike in every cell, so a catch is still a spec
	// the reference passes in the same kind of run. Only the reference's whole run is read.
	variant := t // the reference build, and an injected fault's: the manifest's own vars
	if build != "" {
		var err error
		if variant, err = t.WithVars(o.Var + "=" + build); err != nil {
			return Cell{}, nil, err
		}
	}
	res, err := runner.Run(ctx, runner.Options{Target: variant, OutDir: dir, Procs: o.Procs, Log: logf, Focus: o.Focus, FailFast: failFast, Inject: fault, Sites: o.sites, Deadline: o.Deadline})
	if err != nil {
		return Cell{}, nil, err
	}
	c := cellOf(res, t.Ref, fault, narrowed)
	if value == "" && sub == "" && o.sites {
		reached(&c, res)
	}
	if narrowed && !narrowedCatch(c) {
		// A fault not caught where the probe saw its call meets every spec of its lane, over
		// the lane's length (the whole-run spec's horizon): a miss is the full table's, never
		// a narrowed run's. A catch by the whole-run spec alone is no catch here: no reference
		// ran it over so short a run.
		o.say("classproof mutants: %s on %s was not caught by the %d specs %s; running the lane whole", value, t.Ref, c.Probed, where(value))
		o.whole, o.Focus = true, focusBefore
		whole, run, err := attempt(ctx, o, t, value, failFast, sub)
		whole.Timing.add(c.Timing)
		return whole, run, err
	}
	return c, res.Run, nil
}

// cellOf is what a run of a cell says: which specs caught it, what broke, whether its fault
// fired (for the probe: which calls came where), and, for a fault run narrowed by the probe, how
// many specs it ran.
func cellOf(res *runner.Result, target, fault string, narrowed bool) Cell {
	c := Cell{Target: target, Lane: res.Lane, Passed: res.Passed(), Timing: timing(res)}
	if why := append(append(append([]string(nil), res.Problems...), res.Leaks...), res.Refused...); len(why) > 0 {
		c.Why = why[0]
	}
	if res.Run == nil {
		c.Broken = append(c.Broken, "no report")
		return c
	}
	for _, s := range res.Run.Setups {
		c.Broken = append(c.Broken, fmt.Sprintf("%s in %s", s.Node, s.Suite))
	}
	switch {
	case fault == faults.Probe:
		probed(&c, res)
	default:
		if narrowed {
			c.Probed = res.Run.Count().Ran
		}
		c.NotFired, c.Broken = firing(fault, res, c.Broken)
	}
	for _, s := range res.Run.Specs {
		if s.Outcome() == report.Failed && len(c.CaughtBy)+len(c.Broken) == 0 {
			c.Why = s.Name + ": " + report.FirstLine(s.Reason) // the first failure says more than a lane problem
		}
		switch {
		case s.Outcome() != report.Failed:
		case s.State == "failed" && s.InSpec:
			c.CaughtBy = append(c.CaughtBy, s.Name)
		default:
			c.Broken = append(c.Broken, fmt.Sprintf("%s (%s in %s)", s.Name, s.State, s.FailNode))
		}
	}
	sort.Strings(c.CaughtBy)
	return c
}

// narrowedCatch says a fault cell narrowed by the probe was caught by a spec whose reference run
// it can stand on: any but a suite's whole-run spec, which the reference ran over the lane's
// length only.
func narrowedCatch(c Cell) bool {
	return slices.ContainsFunc(c.CaughtBy, func(s string) bool { return !strings.HasPrefix(s, contract.WholeRunPrefix) })
}

func write(dir string, m *Matrix) error {
	b, _ := json.MarshalIndent(m, "", "  ")
	if err := files.WriteFile(filepath.Join(dir, "matrix.json"), b, 0o644); err != nil {
		return err
	}
	if err := files.WriteFile(filepath.Join(dir, "matrix.md"), []byte(Markdown(m)), 0o644); err != nil || m.UntilCaught || m.Focus != "" {
		return err
	}
	return files.WriteFile(filepath.Join(dir, FirstFile), FormatFirst(Cover(m)), 0o644)
}
