package launcher

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/proctable"
)

// verify checks what the report claims before the kit tracks or judges any of it: its harness is
// the one handed out (isTheHarness), and each tool from the first-th on is that harness's child,
// started when the report says. A report is the launcher's file: a tool it names that is no child
// of the harness (a decoy at background, another suite's test process) is never the kit's to
// judge or to signal.
func (s *Session) verify(first int) error {
	if err := s.isTheHarness(); err != nil {
		return err
	}
	if in, err := proctable.Lookup(s.Report.HarnessPid); err != nil || in.Start != s.Report.HarnessStart {
		return fmt.Errorf("%s harness report %s names pid %d started at %d as the harness; that pid %s", s.Mode, s.report, s.Report.HarnessPid, s.Report.HarnessStart, describePid(in, err))
	}
	for i, t := range s.Report.Tools[first:] {
		in, err := proctable.Lookup(t.Pid)
		if err != nil || in.Ppid != s.Report.HarnessPid || in.Start != t.Start {
			return fmt.Errorf("%s harness report %s names pid %d (started at %d) as tool sleep #%d; that pid %s, not a child of the harness pid %d started then",
				s.Mode, s.report, t.Pid, t.Start, first+i+1, describePid(in, err), s.Report.HarnessPid)
		}
	}
	return nil
}

// describePid says what the kernel shows of a pid a report names (err: Lookup's).
func describePid(in proctable.Info, err error) string {
	switch {
	case proctable.Gone(err):
		return "runs nothing"
	case err != nil:
		return fmt.Sprintf("cannot be read (%v)", err)
	}
	return fmt.Sprintf("has parent %d and started at %d", in.Ppid, in.Start)
}

// isTheHarness checks, from the kernel, that the pid the report names is the harness the kit
// handed out for this session: it runs the fixture harness's code (its content, whatever file it
// was started from), with this session's report path after --report in its arguments (a path no
// other session has). A report is the launcher's claim: a decoy at background class descending
// from the daemon is not the harness.
func (s *Session) isTheHarness() error {
	pid := s.Report.HarnessPid
	args, aerr := proctable.Args(pid)
	exe, eerr := proctable.Exe(pid)
	im, ierr := proctable.ImageOf(s.l.d.Harness)
	var runs bool
	if ierr == nil {
		runs, ierr = im.RunBy(pid)
	}
	if aerr == nil && eerr == nil && ierr == nil && runs && reportOf(args) == s.report {
		return nil
	}
	what := fmt.Sprintf("%v (executable %s)", args, exe)
	if aerr != nil || eerr != nil || ierr != nil {
		what = fmt.Sprintf("something the kit cannot read (%v)", errors.Join(aerr, eerr, ierr))
	}
	return fmt.Errorf("%s harness report %s claims pid %d is the harness; that pid runs %s, not the harness the kit handed out (%s --report %s)",
		s.Mode, s.report, pid, what, s.l.d.Harness, s.report)
}

func (s *Session) waitReport(done func(contract.HarnessReport) bool) error {
	start := time.Now()
	deadline, starvedStop := start.Add(s.l.timeout), start.Add(proctable.StarvedFactor*s.l.timeout)
	var lastStarved, lastLook time.Time
	var starvedBy string
	for {
		b, err := s.l.d.RunsAs.ReadClaim(s.report, maxReport)
		if err == nil {
			var r contract.HarnessReport
			if err := json.Unmarshal(b, &r); err != nil {
				return fmt.Errorf("%s harness report %s: %w", s.Mode, s.report, err)
			}
			if done(r) {
				s.Report = r
				return nil
			}
		} else if !errors.Is(err, os.ErrNotExist) {
			return err
		}
		// A harness (or its class step, or the tool it forks) that waits for a CPU or the disk is
		// background class under a foreground load: the promise kept, not a hang. From a little
		// before the timeout on, look at its processes now and then; while one was seen waiting
		// for a CPU or the disk within starvedWindow, wait on, up to a bound. A process that was
		// only seen asleep on something else fails at the timeout.
		now := time.Now()
		if now.After(deadline.Add(-starvedWindow)) && now.Sub(lastLook) >= 50*time.Millisecond {
			lastLook = now
			started, _ := proctable.Started(s.report, s.l.Roots()...) // unread: no starvation seen, the timeout holds
			if why := proctable.Starved(started...); why != "" {
				lastStarved, starvedBy = now, why
			}
		}
		if now.After(deadline) && (now.Sub(lastStarved) > starvedWindow || now.After(starvedStop)) {
			return s.noReport(start, starvedBy)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// maxReport bounds a harness report: a few pids and start times, read back from a file the
// launcher's processes could replace with anything.
const maxReport = 64 << 10

// starvedWindow is how recently a session's process must have been seen waiting for a CPU or
// the disk for the kit to keep waiting on it past the timeout.
const starvedWindow = 2 * time.Second

// noReport is the error for a report that never came, with what was started for it and, when
// one was seen waiting for a CPU or the disk, what the kit last read that said so.
func (s *Session) noReport(start time.Time, starvedBy string) error {
	started, err := proctable.Started(s.report, s.l.Roots()...)
	below, berr := proctable.Descendants(started...)
	if err = errors.Join(err, berr); err != nil {
		started = nil
	}
	why := "is the harness running?"
	if starvedBy != "" {
		why = fmt.Sprintf("its processes were starved of CPU or disk for %v, last seen %s;", time.Since(start).Round(time.Second), starvedBy)
	}
	what := proctable.DescribeAll(append(started, below...))
	if err != nil {
		what = "unknown: " + err.Error()
	}
	return fmt.Errorf("%s session: no harness report at %s within %v (%s processes started for it: %s%s; the launcher said: %q)",
		s.Mode, s.report, s.l.timeout, why, what, namedPids(s.Output, s.report), strings.TrimSpace(s.Output))
}

// pidRE finds the pids a launcher's answer names ("pid 42", "pid=42", "pid: 42").
var pidRE = regexp.MustCompile(`(?i)\bpid\b\W{0,2}(\d{1,9})\b`)

// namedPids says what became of each pid (a few at most) the launcher's answer to a session
// names: a pid it claimed that no longer runs exited before it became the harness, which tells a
// failed class step (or harness start) from a session that started nothing.
func namedPids(output, report string) string {
	var out []string
	for _, m := range pidRE.FindAllStringSubmatch(output, 3) {
		pid, err := strconv.Atoi(m[1])
		if err != nil || pid <= 0 {
			continue
		}
		args, aerr := proctable.Args(pid)
		alive, lerr := proctable.Alive(pid)
		switch {
		case aerr != nil && lerr != nil:
			out = append(out, fmt.Sprintf("the launcher named pid %d, which the kit cannot read (%v)", pid, errors.Join(aerr, lerr)))
		case aerr != nil && !alive:
			out = append(out, fmt.Sprintf("the launcher named pid %d, which is not running: it exited before it became the harness", pid))
		case aerr != nil:
			out = append(out, fmt.Sprintf("the launcher named pid %d, whose arguments the kit cannot read (%v)", pid, aerr))
		case reportOf(args) != report:
			out = append(out, fmt.Sprintf("the launcher named pid %d, which runs %q, not this session's harness", pid, args))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "; " + strings.Join(out, "; ")
}
