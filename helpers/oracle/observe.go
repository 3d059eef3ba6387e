package oracle

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/classproof/classproof/helpers/base/contract"
)

// Observe reads every subject with one ps call (one snapshot, one fork), then adds what ps cannot
// show on this OS. A subject that ps does not list is an error naming it: a process that died
// cannot prove anything.
func Observe(subjects ...Subject) ([]Observation, error) {
	if len(subjects) == 0 {
		return nil, nil
	}
	pids := make([]string, 0, len(subjects))
	seen := map[int]bool{}
	for _, s := range subjects {
		if s.Pid <= 0 {
			return nil, fmt.Errorf("%s: no pid (%d)", s.Role, s.Pid)
		}
		if !seen[s.Pid] {
			seen[s.Pid] = true
			pids = append(pids, strconv.Itoa(s.Pid))
		}
	}
	sort.Strings(pids)
	args := []string{"-o", PSFields[runtime.GOOS], selectFlag(), strings.Join(pids, ",")}
	out, stderr, err := runPS(args...)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return nil, fmt.Errorf("ps %s, for %s: %w", strings.Join(args, " "), describe(subjects), err)
	case err != nil && len(out) == 0:
		// ps exits 1 when some pid is not found; the missing ones are reported below by name.
		return nil, fmt.Errorf("ps %s: %v %s; none of %s was found", strings.Join(args, " "), err, stderr, describe(subjects))
	}
	rows, err := ParsePS(runtime.GOOS, out)
	if err != nil {
		return nil, err
	}
	obs := make([]Observation, 0, len(subjects))
	for _, s := range subjects {
		o, ok := rows[s.Pid]
		if !ok {
			return nil, fmt.Errorf("%s pid %d: not listed by ps (the process is gone)", s.Role, s.Pid)
		}
		o.Role = s.Role
		if err := addPlatform(&o, s.EveryThread); err != nil {
			return nil, fmt.Errorf("%s pid %d: %w", s.Role, s.Pid, err)
		}
		obs = append(obs, o)
	}
	return obs, nil
}

// ObserveOne is Observe for a single process.
func ObserveOne(role string, pid int) (Observation, error) {
	obs, err := Observe(Subject{Role: role, Pid: pid})
	if err != nil {
		return Observation{}, err
	}
	return obs[0], nil
}

func describe(ss []Subject) string {
	var b []string
	for _, s := range ss {
		b = append(b, fmt.Sprintf("%s pid %d", s.Role, s.Pid))
	}
	return strings.Join(b, ", ")
}

// selectFlag is how ps is told which pids to list: procps-ng's -q (quick mode: it reads only the
// listed pids' /proc files, where -p reads every process on the machine and then filters: a
// third of the kit's CPU went to ps that way) where this ps has it, else -p (macOS's ps, and a
// ps without -q). Asked once per process; the columns and their meaning are the same either way.
var selectFlag = sync.OnceValue(func() string {
	if runtime.GOOS != "linux" {
		return "-p"
	}
	self := strconv.Itoa(os.Getpid())
	out, _, err := runPS("-o", "pid=", "-q", self)
	if err == nil && strings.TrimSpace(string(out)) == self {
		return "-q"
	}
	return "-p"
})

// psBound is how long one ps may take (times CLASSPROOF_TIME_SCALE). ps answers in milliseconds;
// one that does not (a ps blocked on a process's memory, a wrapper that waits) must not hold a
// spec, or the suite, past every timeout the kit has: it is killed, and the observation fails.
var psBound = 30 * time.Second

// runPS runs ps with args, bounded by psBound: its output, what it said on stderr, and an error
// wrapping context.DeadlineExceeded when it was killed for taking longer.
func runPS(args ...string) (out []byte, stderr string, err error) {
	bound, _ := contract.Scaled(psBound) // a bad scale is named where the run reads it
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	var errb bytes.Buffer
	cmd := exec.CommandContext(ctx, "ps", args...)
	cmd.Stderr = &errb
	cmd.WaitDelay = time.Second // a child of ps holding its pipes open ends the wait too
	out, err = cmd.Output()
	if ctx.Err() != nil {
		return nil, "", fmt.Errorf("no answer within %v (killed): %w", bound, context.DeadlineExceeded)
	}
	return out, strings.TrimSpace(errb.String()), err
}
