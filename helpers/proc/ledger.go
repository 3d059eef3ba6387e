package proc

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"syscall"

	"github.com/classproof/classproof/helpers/files"
)

// Record appends pid to the ledger at path as it is now (start time, group, name), for a process
// that no Set of the kit's tracks yet: the harness records itself and its tools this way.
func Record(path, role string, pid int) {
	if path != "" {
		appendLedger(path, identify(Entry{Role: role, Pid: pid}))
	}
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
func Sweep(path, token string) (leaks, refused []string, err error) {
	if err := files.Private(path, false); errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	} else if err != nil {
		return nil, nil, fmt.Errorf("pid ledger: %w; not swept (a planted ledger could name any process)", err)
	}
	b, err := readBounded(path, maxLedger)
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
		if e.live() {
			live = append(live, e)
		}
	}
	// Every decision before any kill: a harness killed first must not leave its tools untied.
	keep, untiedLines := untied(live, token)
	for _, e := range keep {
		kill(e)
		leaks = append(leaks, fmt.Sprintf("%s pid %d (%s)", e.Role, e.Pid, e.Exe))
	}
	refused = append(refused, untiedLines...)
	sort.Strings(leaks)
	return leaks, refused, nil
}

// maxLedger bounds what a sweep reads of a ledger: a run writes a few hundred lines.
const maxLedger = 16 << 20

func readBounded(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err == nil && int64(len(b)) > max {
		err = fmt.Errorf("%s is over %d bytes", path, max)
	}
	return b, err
}
