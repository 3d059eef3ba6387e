package launcher

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/classproof/classproof/helpers/base/proctable"
	"github.com/classproof/classproof/helpers/oracle"
)

// hand records a report path the kit hands out (a session's profile, a spawn spec): the one
// harness each may start (Account); with the harness command it was handed in (a profile's), for
// ArgvAsHanded.
func (l *Instance) hand(report string, command ...string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.handed = append(l.handed, report)
	if len(command) > 0 {
		if l.commands == nil {
			l.commands = map[string][]string{}
		}
		l.commands[report] = slices.Clone(command)
	}
}

// commandFor is the harness command handed out with report; nil for none.
func (l *Instance) commandFor(report string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.commands[report]
}

// Account checks, from the kernel, every process of this instance that runs the kit's harness
// code (by content: a copy or a memfd of the harness is one): exactly one for each report path
// the kit handed out, none for a path it did not.
// A report names the process the launcher points at; a launcher that starts the harness twice
// (a retry, a fallback path, or a second harness at normal beside a decoy at background) breaks
// the seed's promise in the one the kit would not look at otherwise. The error names each such
// process with its class as ps reads it.
func (l *Instance) Account() error {
	im, err := proctable.ImageOf(l.d.Harness)
	if err != nil {
		return fmt.Errorf("reading the kit's harness %s to know it by its content: %w", l.d.Harness, err)
	}
	// One bound on the waits for harnesses caught in exec, however many a launcher holds there.
	deadline := time.Now().Add(proctable.StarvedFactor * execWait)
	pids, uncertain, err := l.candidates(im, deadline)
	if err != nil {
		return fmt.Errorf("listing the processes of %s to account for every harness: %w", l.d.Manifest.Name, err)
	}
	l.mu.Lock()
	handed := slices.Clone(l.handed)
	l.mu.Unlock()
	byReport := map[string][]int{}
	var wrong []string
	var harnesses, others []int
	named := map[int]bool{}
	for _, pid := range pids {
		args, harness, cantTell := harnessArgs(im, pid, uncertain[pid], deadline)
		switch {
		case cantTell != "":
			wrong, named[pid] = append(wrong, harnessLine(pid, args, cantTell)+below(pid)), true
			continue
		case !harness:
			others = append(others, pid) // gone, or not the harness
			continue
		}
		harnesses = append(harnesses, pid)
		report := reportOf(args)
		if !slices.Contains(handed, report) {
			wrong, named[pid] = append(wrong, harnessLine(pid, args, "its --report "+quoteOr(report)+" is no path the kit handed out")), true
			continue
		}
		byReport[report] = append(byReport[report], pid)
	}
	for report, ps := range byReport {
		if len(ps) > 1 {
			for _, pid := range ps {
				args, _ := proctable.Args(pid)
				wrong, named[pid] = append(wrong, harnessLine(pid, args, fmt.Sprintf("one of %d harnesses for the one report %s", len(ps), report))), true
			}
		}
	}
	l.note(others, harnesses)
	var errs []error
	if len(wrong) > 0 {
		slices.Sort(wrong)
		errs = append(errs, fmt.Errorf("every harness accounted for: %s started the kit's harness where the kit handed out no session for it, and the kit judges only the one a report names:\n  %s",
			l.d.Manifest.Name, strings.Join(wrong, "\n  ")))
	}
	if gone := l.unjudged(handed, im, named); len(gone) > 0 {
		errs = append(errs, fmt.Errorf("every harness judged: %s started the harness the kit handed out, and it ended, or can no longer be told apart, before the kit judged it:\n  %s",
			l.d.Manifest.Name, strings.Join(gone, "\n  ")))
	}
	return errors.Join(errs...)
}

// note keeps, as evidence, each process of others seen for the first time that is neither the
// launcher's own service nor a harness's tool: a launcher's helpers may run at normal, and a
// receipt shows them with their class (TakeEvidence).
func (l *Instance) note(others, harnesses []int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen == nil {
		l.seen = map[int]bool{}
	}
	others = slices.DeleteFunc(others, func(pid int) bool { return l.seen[pid] || slices.Contains(l.Roots(), pid) })
	if len(others) == 0 {
		return
	}
	tools, _ := proctable.Descendants(harnesses...)
	for _, pid := range others {
		l.seen[pid] = true
		if slices.Contains(tools, pid) {
			continue
		}
		args, err := proctable.Args(pid)
		o, oerr := oracle.ObserveOne("launcher process", pid)
		if err == nil && oerr == nil {
			l.evidence = append(l.evidence, fmt.Sprintf("%s; %q", o, args))
		}
	}
}

// TakeEvidence is what note kept since the last call: the launcher's processes beside its
// services, harnesses and tools, each with its class.
func (l *Instance) TakeEvidence() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.evidence
	l.evidence = nil
	return out
}

// reportOf is the one report path a harness with these arguments writes, parsed as the harness
// parses them (Go's flag package: -report or --report, its value next or after "=", the last one
// winning, parsing ending at the first argument that is no flag or at "--"); "" when there is none,
// or more than one: the kit reads the first, the harness writes the last, and a launcher that gave
// two had a harness pass for the report the kit handed out while it wrote another.
func reportOf(args []string) string {
	var found []string
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" || len(a) < 2 || a[0] != '-' {
			break
		}
		name, value, inline := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if !inline && i+1 < len(args) {
			i++ // every flag of the harness takes a value
			value = args[i]
		}
		if name == "report" {
			found = append(found, value)
		}
	}
	if len(found) != 1 {
		return ""
	}
	return found[0]
}

func quoteOr(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// harnessLine names a harness process for a receipt: pid, class as ps reads it, arguments, why.
func harnessLine(pid int, args []string, why string) string {
	o, err := oracle.ObserveOne("harness", pid)
	if err != nil {
		return fmt.Sprintf("harness pid %d (class unread: %v; as the kernel says: %s) %q: %s", pid, err, proctable.ThreadsClass(pid), args, why)
	}
	return fmt.Sprintf("%s; %q: %s", o, args, why)
}
