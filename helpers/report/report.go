// Package report reads Ginkgo JSON reports and says what a run proved: which specs ran and
// passed, which failed and how, which were skipped at run time and why, and which the lane's
// label filter left out. The CLI's run, redgreen and gate commands are built on it.
//
// CLI side: it must not import the Ginkgo DSL, Gomega, helpers/suite or fixtures/ (ci/layers.rules).
package report

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/classproof/classproof/helpers/base/contract"
)

// Spec is one It in a run.
type Spec struct {
	Suite     string
	Name      string // container texts and the It, joined as Ginkgo prints them
	Labels    []string
	State     string // passed, failed, skipped, pending, panicked, timedout, interrupted, aborted
	Filtered  bool   // left out by the label filter, or by the run's --focus or --skip
	Unfocused bool   // of those, left out by --focus or --skip (a narrowed run)
	NotRun    bool   // selected, but the run stopped (interrupt, abort, suite failure) before it
	Reason    string // failure or skip message
	Location  string
	Duration  time.Duration
	// InSpec is true when a failure happened in the It itself (an assertion of the promise), not
	// in a BeforeEach, a JustBeforeEach or cleanup.
	InSpec   bool
	FailNode string // the node type the failure happened in, e.g. "BeforeEach"
	// Phases is where the spec's time went, as the kit recorded it (contract.PhaseEntry): launch,
	// session, observe, control, cleanup; the rest of Duration is the spec's own waiting.
	Phases map[string]time.Duration `json:",omitempty"`
	// Readings counts the processes the class matchers judged, by the reading that decided
	// (contract.ReadingEntry): on macOS the base priority or, where it was not read, ps pri.
	Readings map[string]int `json:",omitempty"`
	// Calls counts the class calls the spec's launcher processes made, by call, where the run
	// injected a fault or the probe (contract.CallsEntry); nil where nothing was counted.
	Calls map[string]int64 `json:",omitempty"`
	// Sites counts the variant sites the spec's launcher processes recorded, where the run asked
	// for them (contract.SitesEntry); nil where nothing was recorded.
	Sites map[string]int64 `json:",omitempty"`
}

// Setup is a suite-level node (BeforeSuite and the like) that did not pass.
type Setup struct {
	Suite, Node, State, Reason string
}

// Run is everything in one or more report files.
type Run struct {
	Specs  []Spec
	Setups []Setup
	Suites int
	// Reasons says, per label the run's filter excluded beyond the lane's platform labels (a
	// capability or convention the target lacks), why; see LeftOutReason.
	Reasons map[string]string
	// Lane is the lane the run was for: its own platform label never left a spec out.
	Lane string
	// DryRun is true when any suite report says Ginkgo ran with --dry-run (nothing executed);
	// FailedSuites names the suites whose report says they did not succeed.
	DryRun       bool
	FailedSuites []string
}

// Load reads a Ginkgo JSON report file (a list of suite reports). filter is the label filter the
// run used: a spec it does not select was left out by the lane, one it selects but that never
// started was cut off by the run stopping.
func Load(path, filter string) (*Run, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(b, path, filter)
}

// Parse is Load of bytes already read (from path, named in errors): the CLI digests and judges
// the same bytes.
func Parse(b []byte, path, filter string) (*Run, error) {
	var reports []types.Report
	if err := json.Unmarshal(b, &reports); err != nil {
		return nil, fmt.Errorf("%s: not a Ginkgo JSON report: %w", path, err)
	}
	return FromReports(reports, filter)
}

// FromReports flattens suite reports.
func FromReports(reports []types.Report, filter string) (*Run, error) {
	selects := func([]string) bool { return true }
	if filter != "" {
		lf, err := types.ParseLabelFilter(filter)
		if err != nil {
			return nil, fmt.Errorf("label filter %q: %w", filter, err)
		}
		selects = func(labels []string) bool { return lf(labels) }
	}
	r := &Run{Suites: len(reports)}
	for _, rep := range reports {
		focused, err := focusOf(rep.SuiteConfig)
		if err != nil {
			return nil, err
		}
		if rep.SuiteConfig.DryRun {
			r.DryRun = true
		}
		if !rep.SuiteSucceeded {
			r.FailedSuites = append(r.FailedSuites, rep.SuiteDescription)
		}
		for _, sr := range rep.SpecReports {
			if sr.LeafNodeType != types.NodeTypeIt {
				if sr.State != types.SpecStatePassed {
					r.Setups = append(r.Setups, Setup{Suite: rep.SuiteDescription, Node: sr.LeafNodeType.String(), State: sr.State.String(), Reason: sr.Failure.Message})
				}
				continue
			}
			r.Specs = append(r.Specs, specOf(rep.SuiteDescription, sr, func(s Spec) bool { return selects(s.Labels) }, focused))
		}
	}
	return r, nil
}

// specOf is one spec of a suite's report. A spec that never started is recorded as skipped with
// no failure location (a runtime Skip() has a location and its reason): it was left out by the
// label filter or the focus when labelled or focused so does not select it, else cut off.
func specOf(suite string, sr types.SpecReport, labelled func(Spec) bool, focused func(string) bool) Spec {
	s := Spec{
		Suite:    suite,
		Name:     sr.FullText(),
		Labels:   sr.Labels(),
		State:    sr.State.String(),
		Reason:   sr.Failure.Message,
		Location: sr.LeafNodeLocation.String(),
		Duration: sr.RunTime,
		FailNode: sr.Failure.FailureNodeType.String(),
		InSpec:   sr.Failure.FailureNodeType == types.NodeTypeIt,
	}
	for _, e := range sr.ReportEntries {
		if kind, ok := strings.CutPrefix(e.Name, contract.ReadingEntry); ok {
			if s.Readings == nil {
				s.Readings = map[string]int{}
			}
			s.Readings[kind]++
		}
		if call, ok := strings.CutPrefix(e.Name, contract.CallsEntry); ok {
			s.Calls = addCount(s.Calls, call, e.Value.AsJSON)
		}
		if site, ok := strings.CutPrefix(e.Name, contract.SitesEntry); ok {
			s.Sites = addCount(s.Sites, site, e.Value.AsJSON)
		}
		if name, ok := strings.CutPrefix(e.Name, contract.PhaseEntry); ok {
			var ns int64
			if json.Unmarshal([]byte(e.Value.AsJSON), &ns) == nil {
				if s.Phases == nil {
					s.Phases = map[string]time.Duration{}
				}
				s.Phases[name] += time.Duration(ns)
			}
		}
	}
	if sr.State == types.SpecStateSkipped && sr.Failure.Location.FileName == "" {
		s.Unfocused = labelled(s) && !focused(s.Name)
		s.Filtered = !labelled(s) || s.Unfocused
		s.NotRun = !s.Filtered
	}
	return s
}

// focusOf is Ginkgo's --focus and --skip as the suite ran them: a spec whose text no focus matches,
// or a skip does, was not selected (Ginkgo records it as skipped without a location, as it does a
// spec the run stopped before), so it is left out, never "never started".
func focusOf(c types.SuiteConfig) (func(text string) bool, error) {
	compile := func(list []string) ([]*regexp.Regexp, error) {
		var out []*regexp.Regexp
		for _, s := range list {
			re, err := regexp.Compile(s)
			if err != nil {
				return nil, fmt.Errorf("the report's focus %q: %w", s, err)
			}
			out = append(out, re)
		}
		return out, nil
	}
	focus, err := compile(c.FocusStrings)
	if err != nil {
		return nil, err
	}
	skip, err := compile(c.SkipStrings)
	if err != nil {
		return nil, err
	}
	return func(text string) bool {
		for _, re := range skip {
			if re.MatchString(text) {
				return false
			}
		}
		if len(focus) == 0 {
			return true
		}
		for _, re := range focus {
			if re.MatchString(text) {
				return true
			}
		}
		return false
	}, nil
}

// addCount adds an entry's count (JSON) to m under name, making m if need be; an entry that is
// not a count is left out.
func addCount(m map[string]int64, name, value string) map[string]int64 {
	var n int64
	if json.Unmarshal([]byte(value), &n) != nil {
		return m
	}
	if m == nil {
		m = map[string]int64{}
	}
	m[name] += n
	return m
}
