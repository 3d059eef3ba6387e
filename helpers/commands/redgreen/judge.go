package redgreen

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/classproof/classproof/helpers/report"
)

// Selection says which specs a red/green proof is about: a focus regexp on the full spec text, or
// a Ginkgo label query, or both (both must match). An empty selection is the whole lane: the
// proof is then the fail-to-pass set itself, whatever it holds.
type Selection struct {
	Focus       string
	LabelFilter string
	focus       *regexp.Regexp
	labels      types.LabelFilter
}

// Compile checks the selection once.
func (s *Selection) Compile() error {
	var err error
	if s.Focus != "" {
		if s.focus, err = regexp.Compile(s.Focus); err != nil {
			return fmt.Errorf("--focus %q: %w", s.Focus, err)
		}
	}
	if s.LabelFilter != "" {
		if s.labels, err = types.ParseLabelFilter(s.LabelFilter); err != nil {
			return fmt.Errorf("--label-filter %q: %w", s.LabelFilter, err)
		}
	}
	return nil
}

// Empty says the proof is about the whole lane.
func (s *Selection) Empty() bool { return s.Focus == "" && s.LabelFilter == "" }

// Selects says whether a spec is one the proof is about.
func (s *Selection) Selects(sp report.Spec) bool {
	if s.focus != nil && !s.focus.MatchString(sp.Name) {
		return false
	}
	if s.labels != nil && !s.labels(sp.Labels) {
		return false
	}
	return true
}

// Pair is one selected spec across the two sides.
type Pair struct {
	Name        string
	Red, Green  string // spec state on each side
	RedProof    bool   // failed on red by an assertion in the spec
	RedWhy      string // why red does not prove, when it does not
	RedMessage  string // the red failure message (the oracle's receipt)
	GreenOK     bool
	GreenWhy    string
	GreenRepeat []string // states on the extra green runs
}

// Verdict is a red/green proof's result, judged as SWE-bench judges a fix: the selected specs
// fail on red by their own assertion and pass on green (fail-to-pass); every other spec that
// passed on red passes on green (pass-to-pass); one that failed on red and passes on green was
// fixed too; one that fails on green is a regression; specs left out on a side are neutral.
type Verdict struct {
	Proven      bool
	Reason      string // one line: "proven", or what made it not proven
	Outcomes    []Pair
	Regressions []string      // unselected specs that fail on green
	AlsoFixed   []string      // unselected specs that failed on red and pass on green
	NotRun      []report.Spec // filtered by the lane or skipped, with reasons, from the green side
	// FailToPass are the specs that failed on red by their own assertion and pass on green (every
	// green run): what the red commit breaks and the green one fixes. PassedBoth passed on both
	// sides. Broken failed on green without having passed on red, or could not be compared.
	FailToPass, PassedBoth, Broken []string
}

// Prove compares a red and a green run (plus any extra green runs) for a selection. A red that
// failed for any reason other than an assertion in the selected spec does not prove the spec
// catches the bug, and says which reason it was.
func Judge(sel *Selection, red, green *report.Run, repeats []*report.Run) Verdict {
	v := Verdict{}
	// A side whose suite setup failed ran no spec fairly: that cause alone is the verdict.
	if setup := setupFailures(red, green); setup != "" {
		v.Reason = "not proven: " + setup
		return v
	}
	v.conclude(sel, v.judgeSpecs(sel, red, green, repeats))
	return v
}

// setupFailures names every suite setup node that failed on either side; "" when none did.
func setupFailures(red, green *report.Run) string {
	var setup []string
	for side, run := range map[string]*report.Run{"red": red, "green": green} {
		for _, s := range run.Setups {
			setup = append(setup, fmt.Sprintf("a suite setup node failed on %s (%s in %s): %s", side, s.Node, s.Suite, report.FirstLine(s.Reason)))
		}
	}
	sort.Strings(setup)
	return strings.Join(setup, "; ")
}

// judgeSpecs pairs every spec across the sides and returns why the selection is not proven.
func (v *Verdict) judgeSpecs(sel *Selection, red, green *report.Run, repeats []*report.Run) (why []string) {
	redByName, greenByName := red.ByName(), green.ByName()
	for _, g := range green.Specs {
		if g.Filtered {
			v.NotRun = append(v.NotRun, g)
			continue
		}
		r, onRed := redByName[g.Name]
		o := pair(g, r, onRed, repeats)
		filed := v.sort(o, g, r, onRed)
		switch {
		case sel.Empty():
			// The whole lane: fail-to-pass is the proof; a regression is a spec that passed on
			// red and does not on green; one that did not pass on red either is listed as broken.
			switch filed {
			case "fail-to-pass":
				v.Outcomes = append(v.Outcomes, o)
			case "broken":
			default:
				v.judgeOther(g, r, onRed)
			}
		case !sel.Selects(g):
			v.judgeOther(g, r, onRed)
		default:
			if !o.RedProof {
				why = append(why, fmt.Sprintf("%q: %s", g.Name, o.RedWhy))
			}
			if !o.GreenOK {
				why = append(why, fmt.Sprintf("%q: %s", g.Name, o.GreenWhy))
			}
			v.Outcomes = append(v.Outcomes, o)
		}
	}
	for name, r := range redByName {
		if _, ok := greenByName[name]; !ok && !r.Filtered {
			if !sel.Empty() && sel.Selects(r) {
				why = append(why, fmt.Sprintf("%q exists on red but not on green", name))
			}
			v.Broken = append(v.Broken, fmt.Sprintf("%s: %s on red, absent on green", name, r.State))
		}
	}
	return why
}

// conclude adds the verdict-wide reasons to why and sets Proven and Reason.
func (v *Verdict) conclude(sel *Selection, why []string) {
	switch {
	case sel.Empty() && len(v.Outcomes) == 0:
		why = append(why, "no spec failed on red by its own assertion and passed on green: the fail-to-pass set is empty")
	case len(v.Outcomes) == 0:
		why = append(why, "the selection matches no spec that ran on green")
	}
	sort.Strings(v.FailToPass)
	if !sel.Empty() && len(why) > 0 && len(v.FailToPass) > 0 {
		why = append(why, fmt.Sprintf("the fail-to-pass set is %d spec(s): %s", len(v.FailToPass), strings.Join(v.FailToPass, "; ")))
	}
	if len(v.Regressions) > 0 {
		why = append(why, fmt.Sprintf("%d regression(s) outside the selection", len(v.Regressions)))
	}
	for _, l := range [][]string{v.Regressions, v.AlsoFixed, v.PassedBoth, v.Broken} {
		sort.Strings(l)
	}
	v.Proven = len(why) == 0
	switch {
	case !v.Proven:
		v.Reason = "not proven: " + strings.Join(why, "; ")
	case sel.Empty():
		v.Reason = fmt.Sprintf("proven: %d spec(s) fail on red and pass on green, %d pass on both, none that passed on red fails on green", len(v.FailToPass), len(v.PassedBoth))
	default:
		v.Reason = "proven"
	}
}

// sort files a spec into the fail-to-pass, pass-to-pass or broken lists, whatever the selection.
// It returns the list: fail-to-pass, passed-both, broken, or "" for none of them.
func (v *Verdict) sort(o Pair, g, r report.Spec, onRed bool) string {
	switch {
	case o.RedProof && o.GreenOK:
		v.FailToPass = append(v.FailToPass, g.Name)
		return "fail-to-pass"
	case onRed && r.Outcome() == report.Passed && g.Outcome() == report.Passed:
		v.PassedBoth = append(v.PassedBoth, g.Name)
		return "passed-both"
	case g.Outcome() == report.Failed && !(onRed && r.Outcome() == report.Passed):
		v.Broken = append(v.Broken, fmt.Sprintf("%s: %s on red, %s on green", g.Name, map[bool]string{true: r.State, false: "absent"}[onRed], g.State))
		return "broken"
	}
	return ""
}

// judgeOther sorts a spec outside the selection: a failure on green is a regression (whatever
// red did), a failure on red that passes on green was fixed too, a skip is listed as not run.
func (v *Verdict) judgeOther(g, r report.Spec, onRed bool) {
	switch g.Outcome() {
	case report.LeftOut:
	case report.Skipped:
		v.NotRun = append(v.NotRun, g)
	case report.Passed:
		if onRed && r.Outcome() == report.Failed {
			v.AlsoFixed = append(v.AlsoFixed, fmt.Sprintf("%s: %s on red, passed on green", g.Name, r.State))
		}
	default:
		was := "absent on red"
		if onRed {
			was = r.State + " on red"
		}
		v.Regressions = append(v.Regressions, fmt.Sprintf("%s: %s on green (%s, outside the selection)", g.Name, g.State, was))
	}
}

// pair is one selected spec across the sides: fail-to-pass.
func pair(g, r report.Spec, onRed bool, repeats []*report.Run) Pair {
	o := Pair{Name: g.Name, Green: g.State}
	if !onRed {
		o.Red, o.RedWhy = "absent", "the spec does not exist on red"
	} else {
		o.Red, o.RedMessage = r.State, r.Reason
		o.RedProof, o.RedWhy = redProves(r)
	}
	o.GreenOK = g.State == "passed"
	if !o.GreenOK {
		o.GreenWhy = fmt.Sprintf("%s on green: %s", g.State, report.FirstLine(g.Reason))
	}
	for i, rep := range repeats {
		state := "absent"
		if x, ok := rep.ByName()[g.Name]; ok {
			state = x.State
		}
		o.GreenRepeat = append(o.GreenRepeat, state)
		if state != "passed" {
			o.GreenOK = false
			o.GreenWhy = fmt.Sprintf("%s on green repeat %d", state, i+1)
		}
	}
	return o
}

// redProves says whether a red result is an assertion failing in the spec, and if not, what it was.
func redProves(r report.Spec) (bool, string) {
	if r.State == "passed" {
		return false, "passed on red: the red commit leaves this promise intact, so the spec is not in the fail-to-pass set"
	}
	return r.OwnFailure("on red")
}
