package mutants

import (
	"sort"
	"strings"

	"github.com/classproof/classproof/helpers/base/faults"
	"github.com/classproof/classproof/helpers/report"
	"github.com/classproof/classproof/helpers/runner"
)

// InjectPrefix names a value that is no build of the launcher but a fault injected into the
// reference's processes (faults.Syscalls): "inject:sched_setattr".
const InjectPrefix = "inject:"

// Injected are the values for the named faults ("all": every call in every mode this OS has,
// faults.Syscalls and faults.Modes), each a row of the matrix beside the hand-written variants.
func Injected(names []string) ([]Value, error) {
	if len(names) == 1 && names[0] == "all" {
		names = names[:0]
		for f := range faults.Syscalls {
			names = append(names, f) // silent, the first mode
			for _, m := range faults.Modes[1:] {
				names = append(names, f+":"+m)
			}
		}
		sort.Strings(names)
	}
	var out []Value
	for _, f := range names {
		if err := faults.Check(f); err != nil {
			return nil, err
		}
		out = append(out, Value{Name: InjectPrefix + f, Breaks: faults.Describe(f), OnlyOn: []string{"linux"}, Why: "faults are injected with seccomp"})
	}
	return out, nil
}

// splitFault is the fault a value injects and the build it runs: an injected row runs the
// reference build ("" for the var), its processes given the fault.
func splitFault(value string) (fault, build string) {
	if f, ok := strings.CutPrefix(value, InjectPrefix); ok {
		return f, ""
	}
	return "", value
}

// firing says whether an injected cell's fault never fired, and adds to broken why the cell
// cannot tell: "never fired" holds only where a launcher instance counted the calls, none came in
// any ABI, and the cell's specs ran (a cell whose launcher never started, or whose specs broke in
// setup, says nothing of the fault and is an error, which fails the matrix).
func firing(fault string, res *runner.Result, broken []string) (notFired bool, _ []string) {
	if fault == "" {
		return false, broken
	}
	ran := 0
	for _, s := range res.Run.Specs {
		if o := s.Outcome(); o == report.Passed || o == report.Failed {
			ran++
		}
	}
	switch {
	case res.Injected > 0:
		return false, broken
	case !res.InjectCounted:
		return false, append(broken, "no launcher instance counted the fault's calls (it never started?): whether it fired is unknown")
	case ran == 0:
		return false, append(broken, "no spec ran: whether the fault fired is unknown")
	}
	return len(broken) == 0, broken
}

// neverFired is why a row is neither caught nor missed: its fault was injected on every target
// and no launcher process ever made that call; "" for any other row.
func neverFired(cells []Cell) string {
	for _, c := range cells {
		if !c.NotFired {
			return ""
		}
	}
	return "never fired: no launcher process made that call, on any target (neither caught nor missed)"
}
