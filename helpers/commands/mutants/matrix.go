package mutants

import (
	"encoding/json"
	"path/filepath"

	"github.com/classproof/classproof/helpers/base/files"
)

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
