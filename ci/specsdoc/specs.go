package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/classproof/classproof/helpers/base/label"
	"github.com/classproof/classproof/helpers/lane"
)

// spec is one Ginkgo spec as the catalogue needs it.
type spec struct {
	Suite   string // the suite's folder: cpuclass, resolve, compat
	Name    string // the full text, as the dry run and ci/required-specs.yaml spell it
	Section string // the outermost Describe
	Title   string // the row's words: the inner Describes but a platform's, and the It or table
	Entry   string // a table entry's own text; "" for an It
	Group   string // file:line of the It or of its DescribeTable: the row it folds into
	Labels  []string
}

// specsOf reads the specs of a Ginkgo JSON report (a dry run's), in the report's order. isTable
// says whether the container at a location is a DescribeTable (tableAt reads the source).
func specsOf(path string, isTable func(types.CodeLocation) bool) ([]spec, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var reports []types.Report
	if err := json.Unmarshal(b, &reports); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []spec
	for _, rep := range reports {
		for _, sr := range rep.SpecReports {
			if sr.LeafNodeType != types.NodeTypeIt {
				continue
			}
			out = append(out, specOfReport(filepath.Base(rep.SuitePath), sr, isTable))
		}
	}
	return out, nil
}

func specOfReport(suite string, sr types.SpecReport, isTable func(types.CodeLocation) bool) spec {
	s := spec{Suite: suite, Name: sr.FullText(), Labels: sr.Labels(), Group: where(sr.LeafNodeLocation)}
	texts, locs, labels := sr.ContainerHierarchyTexts, sr.ContainerHierarchyLocations, sr.ContainerHierarchyLabels
	leaf := sr.LeafNodeText
	if n := len(locs); n > 0 && isTable(locs[n-1]) {
		s.Entry, leaf, s.Group = leaf, texts[n-1], where(locs[n-1])
		texts, labels = texts[:n-1], labels[:n-1]
	}
	var words []string
	class := ""
	for i, t := range texts {
		p, onPlatform := platformOf(labels[i])
		switch {
		case i == 0:
			s.Section = t
		case onPlatform:
			class = p.Class
		default:
			words = append(words, t)
		}
	}
	s.Title = strings.Join(append(words, leaf), " ")
	// A spec made once per platform says that platform's class; its row says background's, and
	// the catalogue's prose says what the ignore lane's titles say instead.
	if class != "" {
		s.Title = strings.ReplaceAll(s.Title, class, lane.Platforms[0].Class)
	}
	return s
}

// platformOf is the platform a container's labels name, if one.
func platformOf(labels []string) (lane.Platform, bool) {
	for _, l := range labels {
		if p, ok := lane.ByLabel(l); ok {
			return p, true
		}
	}
	return lane.Platform{}, false
}

// where is a location relative to the repository, so that the catalogue reads the same in every
// checkout.
func where(l types.CodeLocation) string {
	f := l.FileName
	for _, top := range []string{"/suites/", "/helpers/"} {
		if i := strings.LastIndex(f, top); i >= 0 {
			f = f[i+1:]
			break
		}
	}
	return fmt.Sprintf("%s:%d", f, l.LineNumber)
}

// tableAt says whether the source line at l calls DescribeTable: Ginkgo's report does not say
// which containers are tables, and an entry folds into its table's row.
func tableAt(root string) func(types.CodeLocation) bool {
	lines := map[string][]string{}
	return func(l types.CodeLocation) bool {
		f := l.FileName
		if !filepath.IsAbs(f) {
			f = filepath.Join(root, f)
		}
		if _, ok := lines[f]; !ok {
			b, _ := os.ReadFile(f)
			lines[f] = strings.Split(string(b), "\n")
		}
		ls := lines[f]
		return l.LineNumber >= 1 && l.LineNumber <= len(ls) && strings.Contains(ls[l.LineNumber-1], "DescribeTable(")
	}
}

// kindOf is a spec's seed keys and conventions, or an error naming it when it has neither (every
// spec must say which seed sentence it checks or which convention it is).
func kindOf(s spec) (seeds, convs []string, err error) {
	for _, l := range s.Labels {
		switch {
		case strings.HasPrefix(l, label.SeedPrefix):
			if _, ok := label.SeedSentence(l); !ok {
				return nil, nil, fmt.Errorf("spec %q (%s): label %q is no seed sentence of helpers/base/label/seed.go", s.Name, s.Group, l)
			}
			seeds = append(seeds, l)
		case strings.HasPrefix(l, label.ConventionPrefix):
			convs = append(convs, l)
		}
	}
	if len(seeds) == 0 && len(convs) == 0 {
		return nil, nil, fmt.Errorf("spec %q (%s) has no seed label (label.Seed*: the seed sentence it checks) and no convention label (label.Conv*)", s.Name, s.Group)
	}
	return seeds, convs, nil
}
