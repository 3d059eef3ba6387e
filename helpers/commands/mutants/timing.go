package mutants

import (
	"fmt"
	"sort"
	"strings"

	"github.com/classproof/classproof/helpers/runner"
)

// Timing is where one cell's time went, in seconds: the wait for a free slot (the time its slot
// stood idle before it began, so that waits add up), the suites' compile (cached after the first run),
// the variant's build, Ginkgo's run split into the specs' own time and the rest (suite setup,
// starting processes, reporting), and the sweep. A benchmark's figures: nothing asserts them.
type Timing struct {
	Wait    float64 `json:"wait_s"`
	Compile float64 `json:"compile_s"`
	Build   float64 `json:"build_s"`
	Setup   float64 `json:"setup_s"`
	Specs   float64 `json:"specs_s"`
	Sweep   float64 `json:"sweep_s"`
	Total   float64 `json:"total_s"` // the cell's run, from its start to its end (not the wait)
}

// add counts an earlier attempt of the same cell (an until-caught lane run again whole) in t.
func (t *Timing) add(u Timing) {
	t.Compile += u.Compile
	t.Build += u.Build
	t.Setup += u.Setup
	t.Specs += u.Specs
	t.Sweep += u.Sweep
}

// timing reads a finished run's phases (runner.Result.Phases, in ms) and its specs' durations;
// the caller adds the wait and the cell's whole run.
func timing(res *runner.Result) Timing {
	t := Timing{Compile: res.Phases["compile"] / 1e3, Build: res.Phases["preflight"] / 1e3, Sweep: res.Phases["sweep"] / 1e3}
	if res.Run != nil {
		for _, s := range res.Run.Specs {
			t.Specs += s.Duration.Seconds()
		}
	}
	// With --procs N the specs overlap, and their sum can pass Ginkgo's wall time.
	t.Setup = max(res.Phases["ginkgo"]/1e3-t.Specs, 0)
	return t
}

// TimingMarkdown is the matrix's "where the time goes": per target, the sum over its cells of
// each part, and the cells' count; a matrix run before cells had timings says so.
func TimingMarkdown(m *Matrix) string {
	sums := map[string]*Timing{}
	count := map[string]int{}
	add := func(c Cell) {
		if sums[c.Target] == nil {
			sums[c.Target] = &Timing{}
		}
		s := sums[c.Target]
		s.Wait, s.Compile, s.Build = s.Wait+c.Timing.Wait, s.Compile+c.Timing.Compile, s.Build+c.Timing.Build
		s.Setup, s.Specs, s.Sweep, s.Total = s.Setup+c.Timing.Setup, s.Specs+c.Timing.Specs, s.Sweep+c.Timing.Sweep, s.Total+c.Timing.Total
		count[c.Target]++
	}
	for _, c := range m.Baseline {
		add(c)
	}
	for _, r := range m.Rows {
		for _, c := range r.Cells {
			add(c)
		}
	}
	targets := make([]string, 0, len(sums))
	for t := range sums {
		targets = append(targets, t)
	}
	sort.Strings(targets)
	var b strings.Builder
	fmt.Fprintf(&b, "\nWhere the time goes (seconds summed over each target's cells; %.0f s wall for the whole matrix, %d side by side):\n\n", m.Wall, m.Jobs)
	b.WriteString("| target | cells | waiting for a slot | compile | the variant's build | setup and the rest | specs | sweep | cells' runs |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, t := range targets {
		s := sums[t]
		fmt.Fprintf(&b, "| `%s` | %d | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f |\n", t, count[t], s.Wait, s.Compile, s.Build, s.Setup, s.Specs, s.Sweep, s.Total)
	}
	return b.String()
}
