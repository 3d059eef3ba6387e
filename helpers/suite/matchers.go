package suite

import (
	"fmt"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega/gcustom"
	"github.com/onsi/gomega/types"

	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/oracle"
)

// verdict carries the matcher's findings from Match to the message template.
type verdict struct {
	Lines   []string
	Control string
	Expect  string
}

const receiptTemplate = `{{range .Data.Lines}}{{.}}
{{end}}expected each {{.To}} be at {{.Data.Expect}}
control {{.Data.Control}}`

// BeAtBackground succeeds when every observed process (a oracle.Observation or a []oracle.Observation) is at
// background in the sense of m. The failure message is a receipt: each process that is not, what
// ps said, what was expected, and the control's reading.
func BeAtBackground(m oracle.Meaning, control oracle.Observation) types.GomegaMatcher {
	return classMatcher(control, "background = "+m.Describe(), func(o oracle.Observation) (bool, string, oracle.Decision) {
		ok, why := oracle.Background(m, o, control)
		return ok, why, oracle.DecidedBy(o, nil)
	})
}

// HaveControlClass succeeds when every observed process has the class of the control process the
// kit started itself: "normal" is whatever a process the launcher did not touch gets here, never
// a hard-coded number.
func HaveControlClass(control oracle.Observation) types.GomegaMatcher {
	return classMatcher(control, "the control's class", func(o oracle.Observation) (bool, string, oracle.Decision) {
		ok, why := oracle.SameClass(o, control)
		return ok, why, oracle.DecidedBy(o, &control)
	})
}

// check returns the verdict, why not, and which reading decided (oracle.DecidedBy). Each process
// judged is recorded in the report (recordReading), once per matcher for each distinct reading.
func classMatcher(control oracle.Observation, expect string, check func(oracle.Observation) (bool, string, oracle.Decision)) types.GomegaMatcher {
	v := &verdict{Control: control.String(), Expect: expect}
	recorded := map[string]bool{}
	return gcustom.MakeMatcher(func(actual any) (bool, error) {
		var obs []oracle.Observation
		switch a := actual.(type) {
		case oracle.Observation:
			obs = []oracle.Observation{a}
		case []oracle.Observation:
			obs = a
		default:
			return false, fmt.Errorf("class matchers take an oracle.Observation or []oracle.Observation, got %T", actual)
		}
		if len(obs) == 0 {
			return false, fmt.Errorf("no observation to check: an empty list proves nothing")
		}
		v.Lines = v.Lines[:0]
		// A control that moved with the kit (a launcher changed what both inherit) makes every
		// comparison with it wrong: the receipt names that, not the process under test.
		if moved := ownMoved(control, "comparing with "+control.String()); moved != "" {
			v.Lines = append(v.Lines, "FAIL "+moved)
			return false, nil
		}
		all := true
		for _, o := range obs {
			ok, why, decided := check(o)
			recordReading(recorded, o, decided, ok)
			mark := "ok  "
			if !ok {
				all = false
				mark = "FAIL"
			}
			line := fmt.Sprintf("%s %s", mark, o)
			if why != "" {
				line += " -- " + why
			}
			if d := decided.String(); d != "" {
				line += " [" + d + "]"
			}
			v.Lines = append(v.Lines, line+fmt.Sprintf(" (ps said %q)", o.PS))
		}
		return all, nil
	}).WithTemplate(receiptTemplate, v)
}

// recordReading adds a report entry for one judged process, named by the reading that decided
// (contract.ReadingEntry), unless this matcher recorded the same line already: Consistently asks
// the matcher every 100 ms, and one entry per change is the evidence.
func recordReading(recorded map[string]bool, o oracle.Observation, decided oracle.Decision, ok bool) {
	line := fmt.Sprintf("%s (ps said %q) [%s] ok=%v", o, o.PS, decided, ok)
	if recorded[line] {
		return
	}
	recorded[line] = true
	recordEntry(contract.ReadingEntry+decided.Reading, line)
}

// recordEntry adds a report entry to the running spec; the matchers' own unit tests, which run
// outside a Ginkgo suite, catch what it records instead.
var recordEntry = func(name, value string) {
	ginkgo.AddReportEntry(name, value, ginkgo.ReportEntryVisibilityNever)
}
