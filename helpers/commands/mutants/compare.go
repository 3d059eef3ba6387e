package mutants

import (
	"fmt"
	"reflect"
	"slices"
)

// SameCells and CaughtAlike are for the kit's tests (this package's and the CLI's e2e tests of
// shards and --first): exported because tests of two packages share them.
//
// SameCells says how two matrices differ in their verdicts, cell for cell (what caught each
// variant, what broke, what passed), leaving out timings; nil when they agree.
func SameCells(a, b *Matrix) error {
	strip := func(m *Matrix) (base []Cell, rows []Row) {
		for _, c := range m.Baseline {
			base = append(base, verdictOf(c))
		}
		for _, r := range m.Rows {
			r2 := r
			r2.Cells = nil
			for _, c := range r.Cells {
				r2.Cells = append(r2.Cells, verdictOf(c))
			}
			rows = append(rows, r2)
		}
		return base, rows
	}
	ab, ar := strip(a)
	bb, br := strip(b)
	if !reflect.DeepEqual(ab, bb) {
		return fmt.Errorf("baselines differ: %+v against %+v", ab, bb)
	}
	if len(ar) != len(br) {
		return fmt.Errorf("%d rows against %d", len(ar), len(br))
	}
	for i := range ar {
		if !reflect.DeepEqual(ar[i], br[i]) {
			return fmt.Errorf("row %d (%s) differs: %+v against %+v", i+1, ar[i].Value.Name, ar[i], br[i])
		}
	}
	if a.OK != b.OK {
		return fmt.Errorf("verdict %v against %v", a.OK, b.OK)
	}
	return nil
}

// verdictOf is a cell without its timing, without Why (a failure message: the same spec's
// message names pids and paths that differ from run to run), and without how the probe narrowed
// it (Probed, Calls, Sites, Lasting): how a cell ran, not what it found.
func verdictOf(c Cell) Cell {
	c.Timing, c.Why, c.Probed, c.Calls, c.Sites, c.Lasting = Timing{}, "", 0, nil, nil, nil
	return c
}

// CaughtAlike says where an until-caught matrix and a full one disagree: a variant is caught
// in one and not in the other, or on a lane that ran in both, or a spec stopped a lane that the
// full table does not list as catching it there; nil when they agree. A cell the until-caught
// run left out (its variant caught on a lane before) is compared by its row only.
func CaughtAlike(full, until *Matrix) error {
	if len(full.Rows) != len(until.Rows) {
		return fmt.Errorf("%d rows against %d", len(full.Rows), len(until.Rows))
	}
	for i, fr := range full.Rows {
		ur := until.Rows[i]
		if fr.Value.Name != ur.Value.Name || len(fr.Cells) != len(ur.Cells) {
			return fmt.Errorf("row %d: %s with %d cells against %s with %d", i+1, fr.Value.Name, len(fr.Cells), ur.Value.Name, len(ur.Cells))
		}
		if fr.Caught != ur.Caught || fr.LeftOut != ur.LeftOut {
			return fmt.Errorf("%s: caught %v in the full table, %v until caught", fr.Value.Name, fr.Caught, ur.Caught)
		}
		for j, fc := range fr.Cells {
			uc := ur.Cells[j]
			if uc.NotRun != "" {
				continue
			}
			if (len(fc.CaughtBy) > 0) != (len(uc.CaughtBy) > 0) {
				return fmt.Errorf("%s on %s: caught by %d specs in the full table, by %d until caught", fr.Value.Name, fc.Lane, len(fc.CaughtBy), len(uc.CaughtBy))
			}
			for _, s := range uc.CaughtBy {
				if !slices.Contains(fc.CaughtBy, s) {
					return fmt.Errorf("%s on %s: %q stopped the lane, but the full table does not list it as catching it", fr.Value.Name, fc.Lane, s)
				}
			}
		}
	}
	return nil
}
