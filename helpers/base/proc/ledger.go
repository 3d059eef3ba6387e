package proc

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/classproof/classproof/helpers/base/cgroup"
	"github.com/classproof/classproof/helpers/base/files"
	"github.com/classproof/classproof/helpers/base/proctable"
)

// The roles the harness records itself and its tools under (Record): the kit finds them in the
// ledger by these (HarnessLines).
const (
	HarnessRole = "harness (self-recorded)"
	ToolRole    = "tool sleep (recorded by the harness)"
)

// Record appends pid to the ledger at path as it is now (start time, parent, group, name), for a
// process that no Set of the kit's tracks yet: the harness records itself and its tools this way,
// each with report, the --report path the harness was started with (as ReportKey writes it).
func Record(path, role string, pid int, report string) {
	if path != "" {
		e := identify(Entry{Role: role, Pid: pid})
		e.Report = ReportKey(report)
		appendLedger(path, e)
	}
}

// ReportKey is a report path as the harness records it and the kit compares it: made absolute,
// cleaned, and its folder's symlinks resolved, so one file named two ways is one report. A
// launcher that hands the harness the kit's report as DIR/./report-1.json, or through a symlink
// to DIR, and kills it once it reported at normal, was never matched with what the kit handed
// out, and passed (a hostile review's harness-killed-dotpath); macOS's /var is /private/var. A
// folder that cannot be resolved leaves the path absolute and cleaned only.
func ReportKey(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return abs
	}
	return filepath.Join(dir, filepath.Base(abs))
}

// NewLedger makes the run's empty ledger before any launcher process starts: the sandbox grants a
// launcher's processes (the harness records itself there) the right to append to that one file,
// and a rule for a file that does not exist yet is dropped from the policy (Landlock's
// IgnoreIfMissing; Seatbelt's literal of an unresolved path). A file already there, or a symlink,
// is refused: the ledger is the kit's own.
func NewLedger(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return fmt.Errorf("making the pid ledger: %w", err)
	}
	return f.Close()
}

func appendLedger(path string, e Entry) {
	b, _ := json.Marshal(e)
	// O_NOFOLLOW: a ledger planted as a symlink must not make the kit append to its target.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.Write(append(b, '\n')) // one small write under O_APPEND: lines from parallel processes do not interleave
}

// Sweep reads a ledger and kills every process in it that is still alive, still the process
// that was recorded (same pid, same start time) and tied to this run (see Tied: the launcher's
// processes can append to the ledger, so a line is a claim). It returns one line per process it
// had to kill, each a leak, and one per line it refused, each naming why. A line without a start
// time names a process that was gone when it was recorded; its pid is never signalled.
// Within the run's cgroup (scope, nil where there is none) the kernel says what is the run's.
func Sweep(path, token string, scope *cgroup.Cgroup, handedTo int) (leaks, refused []string, err error) {
	if err := files.Private(path, false, handedTo); errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	} else if err != nil {
		return nil, nil, fmt.Errorf("pid ledger: %w; not swept (a planted ledger could name any process)", err)
	}
	b, err := files.ReadClaim(path, maxLedger)
	if err != nil {
		return nil, nil, fmt.Errorf("pid ledger: %w", err)
	}
	type key struct {
		pid   int
		start uint64
	}
	seen := map[key]bool{}
	var live []Entry
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e Entry
		if line == "" {
			continue
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			refused = append(refused, fmt.Sprintf("ledger line %.80q: not an entry: %v", line, err))
			continue
		}
		if seen[key{e.Pid, e.Start}] {
			continue
		}
		seen[key{e.Pid, e.Start}] = true
		switch alive, err := e.state(); {
		case err != nil:
			refused = append(refused, fmt.Sprintf("%s pid %d (%s): the kit cannot tell whether it still runs, so it is not swept: %v", e.Role, e.Pid, e.Exe, err))
		case alive:
			live = append(live, e)
		}
	}
	// Every decision before any kill: a harness killed first must not leave its tools untied.
	keep, untiedLines := untied(live, token, scope)
	for _, e := range keep {
		kill(e)
		leaks = append(leaks, fmt.Sprintf("%s pid %d (%s)", e.Role, e.Pid, e.Exe))
	}
	refused = append(refused, untiedLines...)
	sort.Strings(leaks)
	return leaks, refused, nil
}

// Claims reads the ledger at path as the claims it holds: one Entry per line that parses (Sweep
// names the others); none, and no error, where there is no ledger. Every line is a claim: a
// launcher's process can append to the ledger.
func Claims(path string) ([]Entry, error) {
	b, err := files.ReadClaim(path, maxLedger)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("pid ledger: %w", err)
	}
	var out []Entry
	for _, line := range strings.Split(string(b), "\n") {
		var e Entry
		if line != "" && json.Unmarshal([]byte(line), &e) == nil {
			out = append(out, e)
		}
	}
	return out, nil
}

// maxLedger bounds what a sweep reads of a ledger: a run writes a few hundred lines.
const maxLedger = 16 << 20

// SweepToken kills every process that carries the run's token (in its environment or as an
// argument) and is still alive after the run: where there is no cgroup, this finds what left its
// group and its parent (a double fork and setsid is handed to init, or to launchd on macOS, which
// has no subreaper: bsd/kern/kern_exit.c reparents to initproc) as long as it kept the
// environment it was started with. Never the kit or its ancestors. One line per process, each a
// leak.
func SweepToken(token string) ([]string, error) {
	if token == "" {
		return nil, nil
	}
	all, err := proctable.Table()
	if err != nil {
		return nil, fmt.Errorf("finding what carries the run's token: %w", err)
	}
	k := thisKit()
	var leaks []string
	for pid, in := range all {
		if in.Zombie {
			continue
		}
		w, err := proctable.Identity(pid)
		if err != nil || !carries(w, token) {
			continue
		}
		if ok, why := tiedBy(pid, k, nil, nil, ""); (!ok && why != "") || proctable.Exiting(pid) {
			continue // the kit's own, or dying of a kill already sent (a supervisor past its deadline)
		}
		line := "carries the run's token: " + cgroup.Leftover(pid)
		kill(identify(Entry{Role: "carries the run's token", Pid: pid, Start: in.Start}))
		leaks = append(leaks, line)
	}
	sort.Strings(leaks)
	return leaks, nil
}
