package main

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// row is one line of a suite's table: an It, or a DescribeTable with its entries, folded over
// the platforms and the direct and hosted sessions it runs for.
type row struct {
	Suite, Section, Group string
	Titles                []string // distinct, in the order of the specs' names
	Entries               []string // a table's distinct entries
	Specs                 []spec
}

// Key is what a hand-kept note names the row by: its section and title as the table folds it,
// which the specs' names pin in ci/required-specs.yaml (a row's source line moves with every
// edit, its title does not).
func (r *row) Key() string { return r.Section + " | " + fold(r.Titles) }

// rowsOf folds specs into rows, in source order (file, then line), each suite's rows apart.
func rowsOf(specs []spec) []*row {
	specs = slices.Clone(specs)
	sort.SliceStable(specs, func(i, j int) bool { return specs[i].Name < specs[j].Name })
	byKey := map[string]*row{}
	var rows []*row
	for _, s := range specs {
		k := s.Suite + " " + s.Group
		r := byKey[k]
		if r == nil {
			r = &row{Suite: s.Suite, Section: s.Section, Group: s.Group}
			byKey[k] = r
			rows = append(rows, r)
		}
		r.Specs = append(r.Specs, s)
		if !slices.Contains(r.Titles, s.Title) {
			r.Titles = append(r.Titles, s.Title)
		}
		if s.Entry != "" && !slices.Contains(r.Entries, s.Entry) {
			r.Entries = append(r.Entries, s.Entry)
		}
	}
	// the suites' own files first, in source order; the specs helpers/suite adds to every suite
	// (the whole run's) after them
	sort.SliceStable(rows, func(i, j int) bool {
		if hi, hj := strings.HasPrefix(rows[i].Group, "helpers/"), strings.HasPrefix(rows[j].Group, "helpers/"); hi != hj {
			return hj
		}
		return sourceLess(rows[i].Group, rows[j].Group)
	})
	return rows
}

// sourceLess orders file:line locations by file, then by line as a number.
func sourceLess(a, b string) bool {
	fa, la := splitLine(a)
	fb, lb := splitLine(b)
	if fa != fb {
		return fa < fb
	}
	return la < lb
}

func splitLine(loc string) (string, int) {
	i := strings.LastIndex(loc, ":")
	n, _ := strconv.Atoi(loc[i+1:])
	return loc[:i], n
}

// labelsIn splits the labels with one of prefixes that the row's specs carry into those every
// spec carries and those only some do.
func (r *row) labelsIn(prefixes ...string) (all, some []string) {
	count := map[string]int{}
	var order []string
	for _, s := range r.Specs {
		for _, l := range s.Labels {
			if !slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(l, p) }) {
				continue
			}
			if count[l] == 0 {
				order = append(order, l)
			}
			count[l]++
		}
	}
	sort.Strings(order)
	for _, l := range order {
		if count[l] == len(r.Specs) {
			all = append(all, l)
		} else {
			some = append(some, l)
		}
	}
	return all, some
}

// check is every spec's kind in order, and each hand-kept note naming a row: the errors that
// keep the catalogue from saying less than the suites do.
func check(rows []*row, notes map[string]string) error {
	var errs []string
	keys := map[string]bool{}
	for _, r := range rows {
		// one error per row: a table's rows and a spec's platforms share their labels
		for _, s := range r.Specs {
			if _, _, err := kindOf(s); err != nil {
				errs = append(errs, err.Error())
				break
			}
		}
		keys[r.Key()] = true
	}
	for k := range notes {
		if !keys[k] {
			errs = append(errs, fmt.Sprintf("ci/specsdoc/notes.tsv: note for %q names no spec row (a title changed? a row is keyed \"section | title\", the title as the table folds it)", k))
		}
	}
	sort.Strings(errs)
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return nil
}
