// Package limits bounds what a run's launcher processes may hold: the largest file each may write,
// and where they run as a uid of the run's own (helpers/base/identity, ForRun), how many processes
// and threads that uid may have and how much memory, sampled while the run goes on. A launcher
// that forks without end or fills memory then fails its run, saying which bound it passed,
// rather than take the machine and every other run down with it (docs/containment.md, "Bounds").
package limits

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/classproof/classproof/helpers/base/contract"
)

// Limits bound what a run's launcher processes may hold (docs/containment.md, "Bounds"). Each
// default is some ten times what a full lane of refmux needed at its peak on a 2-core Linux
// machine (run.json's launcher_peak has a run's own figures).
type Limits struct {
	// Procs is how many processes and threads a run's own launcher uid may have at once:
	// RLIMIT_NPROC, which the kernel counts per uid, so only where the uid is the run's own.
	Procs uint64
	// FileBytes is the largest file a launcher process may write (RLIMIT_FSIZE, per process):
	// the pid ledger the harness appends to, a log, anything in {dir}.
	FileBytes uint64
	// MemoryBytes is how much resident memory a run's own launcher uid's processes may hold
	// together, sampled every Interval; past it they are killed and the run fails.
	MemoryBytes uint64
}

// AtProcs says whether tasks, a sample of the run's uid, is at the procs bound, and within how
// many of it a sample counts as there. Nothing records the kernel's refusal of a fork, and a
// sample rarely sees the count at the bound itself: what the refusal ends (the shell whose fork
// failed, a Go process that could not start a thread, with every thread it had) is gone by the
// next one. A fork storm here stood 5 under a bound of 512 after it, one in CI 8 under; a Go
// process has a thread or so per core. So the band: a sixteenth of the bound, at least 8.
func (l Limits) AtProcs(tasks int) (at bool, margin uint64) {
	margin = max(8, l.Procs/16)
	return uint64(tasks)+margin >= l.Procs, margin
}

// Default are the bounds of a run with procs Ginkgo processes: a full lane of refmux at
// --procs 2 had at most 181 processes and threads of the run's uid at once and held 148 MiB
// (summed resident memory, shared pages counted in each process; sampled every second, `make
// verify` on a 2-core Linux machine): some 2048 and 768 MiB for each Ginkgo process, at least
// 4096 and 1536 MiB, is ten times over.
func Default(procs int) Limits {
	procs = max(procs, 1)
	return Limits{Procs: max(4096, 2048*uint64(procs)), FileBytes: minFileBytes, MemoryBytes: max(1536<<20, 768<<20*uint64(procs))}
}

// Accepted is what contract.LauncherLimitsEnv takes, for its errors and the docs.
const Accepted = "space-separated NAME=VALUE: procs=N (64 or more), file=SIZE (64MiB or more) and memory=SIZE (1MiB or more; SIZE a number of bytes with an optional KiB, MiB or GiB)"

// minFileBytes is the least file bound: a lane's report.json is some 1.5 MB, and Ginkgo writes
// it from a suite process, under the same bound.
const minFileBytes = 64 << 20

// Launcher is the user's bounds (contract.LauncherLimitsEnv) over Default(procs); an
// error names the variable, the value and what is accepted. The CLI hands the suites the bounds
// it decided, all three named, in the same variable.
func Launcher(procs int) (Limits, error) {
	l := Default(procs)
	v := contract.Current().LauncherLimits
	for _, f := range strings.Fields(v) {
		name, val, _ := strings.Cut(f, "=")
		var err error
		switch name {
		case "procs":
			l.Procs, err = strconv.ParseUint(val, 10, 32)
			if err == nil && l.Procs < 64 {
				err = fmt.Errorf("below 64")
			}
		case "file":
			// The suites' processes hold it too (Bound), and Ginkgo writes each suite's
			// reports from one of them: a bound below the default would cut those.
			if l.FileBytes, err = parseSize(val); err == nil && l.FileBytes < minFileBytes {
				err = fmt.Errorf("below %s, the suites' own reports' bound", exact(minFileBytes))
			}
		case "memory":
			l.MemoryBytes, err = parseSize(val)
		default:
			err = fmt.Errorf("no bound is called %q", name)
		}
		if err != nil {
			return Default(procs), fmt.Errorf("$%s=%q: %q: %v; expected %s", contract.LauncherLimitsEnv, v, f, err, Accepted)
		}
	}
	return l, nil
}

func parseSize(v string) (uint64, error) {
	mult := uint64(1)
	for _, u := range []struct {
		suffix string
		mult   uint64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
		if n, ok := strings.CutSuffix(v, u.suffix); ok {
			v, mult = n, u.mult
			break
		}
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("not a size")
	}
	if n*mult < 1<<20 || n*mult/mult != n {
		return 0, fmt.Errorf("below 1MiB or too large")
	}
	return n * mult, nil
}

// String is the bounds as the run says them.
func (l Limits) String() string {
	return fmt.Sprintf("procs=%d file=%s memory=%s", l.Procs, exact(l.FileBytes), exact(l.MemoryBytes))
}

// exact is n as Launcher reads it back.
func exact(n uint64) string {
	switch {
	case n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	}
	return fmt.Sprint(n)
}

// Size is n bytes as a run says how much was held: in MiB.
func Size(n uint64) string { return fmt.Sprintf("%.1fMiB", float64(n)/(1<<20)) }

// Interval is how often Watch samples a run's own uid: a launcher may hold more than its
// memory bound for up to this long before it is killed. A sample reads /proc/PID/status of
// every process (a launcher may hide nothing by making itself non-dumpable): some 2 ms of CPU
// with 70 processes on a 2-core Linux machine, under 1% of one core at this interval.
const Interval = 250 * time.Millisecond

// Peak is the most a run's own uid held at once, as Watch sampled it.
type Peak struct {
	Tasks    int    `json:"tasks"`     // processes and threads
	RSSBytes uint64 `json:"rss_bytes"` // resident memory, summed over its processes
}
