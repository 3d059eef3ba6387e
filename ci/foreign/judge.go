package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/classproof/classproof/helpers/gate"
)

// result is one run, judged.
type result struct {
	target
	Passed, Failed int
	Took           time.Duration
	Problems       []string // each a failure line; none: the run passed
}

func (r *result) add(format string, a ...any) {
	r.Problems = append(r.Problems, fmt.Sprintf(format, a...))
}

// line is the run's summary line.
func (r result) line() string {
	verdict := "passed"
	if len(r.Problems) > 0 {
		verdict = "FAILED"
	}
	return fmt.Sprintf("foreign: %-44s %s: %d passed, %d failed, %.0f s", r.name(), verdict, r.Passed, r.Failed, r.Took.Seconds())
}

// failures are the run's failure lines, each naming the run.
func (r result) failures() []string {
	var out []string
	for _, p := range r.Problems {
		out = append(out, fmt.Sprintf("  FAIL %s: %s", r.name(), p))
	}
	return out
}

// judge reads the run in out as the release gate reads a lane (helpers/gate: every spec that did
// not pass, a failed setup, a run that stopped, leaked or ran nothing, a report changed after
// the run), with the kit's exit code: 2 is a run that could not even start, named with the
// kit's own message; an exit the reports do not explain fails too.
func judge(r *result, out string, code int, err error, stderr string) {
	if code == 2 {
		r.add("classproof could not run it (exit 2): %s", kitMessage(stderr))
		return
	}
	if _, serr := os.Stat(out); os.IsNotExist(serr) {
		r.add("classproof run (%s) left no reports: %s does not exist", exit(err), out)
		return
	}
	v, gerr := gate.EvaluateWith(out, nil, nil, gate.Options{})
	if gerr != nil {
		r.add("%v", gerr)
	} else {
		for _, l := range v.Lanes {
			if l.Meta.Lane != "" {
				r.Lane = l.Meta.Lane
			}
			r.Passed, r.Failed = r.Passed+l.Count.Passed, r.Failed+l.Count.Failed
			r.Problems = append(r.Problems, l.Problems...)
		}
		if len(v.Lanes) == 0 {
			r.Problems = append(r.Problems, v.Reasons...) // no report at all
		}
	}
	if code != 0 && len(r.Problems) == 0 {
		r.add("classproof run ended with %s, yet its reports show no failure: %s", exit(err), kitMessage(stderr))
	}
}

// exit says how the kit's process ended.
func exit(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// kitMessage is what the kit said when it gave up: its error (`classproof run: ...`, printed
// once by cmd/classproof's fail, with any lines under it) on one line, else the last line it
// printed on stderr.
func kitMessage(stderr string) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	from := len(lines) - 1
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "classproof run: ") {
			from = i
			break
		}
	}
	msg := ""
	for _, l := range lines[from:] {
		switch l = strings.TrimSpace(l); {
		case l == "":
		case msg == "" || strings.HasSuffix(msg, ":"):
			msg = strings.TrimSpace(msg + " " + l)
		default:
			msg += "; " + l
		}
	}
	if msg == "" {
		return "(it printed nothing on stderr)"
	}
	return msg
}
