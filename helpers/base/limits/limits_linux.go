package limits

import (
	"fmt"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/identity"
)

// Bound limits the launcher processes this process starts, which run as id (they inherit its limits): the size of
// a file each may write (RLIMIT_FSIZE), and, where they run as a uid of the run's own (PerRun),
// how many processes and threads they may have (RLIMIT_NPROC, which the kernel counts per uid:
// kernel/fork.c, copy_process, fails a fork past it with EAGAIN; kernel/cred.c, set_user, and
// fs/exec.c fail the exec of a setuid to a uid past it). With a uid no one else has the count is
// exactly the run's; a uid shared with others is left without it, as their processes would count.
// Root is never counted (INIT_USER), so the kit's own processes are not bound by it.
func Bound(id identity.Identity) error {
	l, err := Launcher(1) // the CLI named all three
	if err != nil {
		return err
	}
	if err := unix.Setrlimit(unix.RLIMIT_FSIZE, &unix.Rlimit{Cur: l.FileBytes, Max: l.FileBytes}); err != nil {
		return fmt.Errorf("setrlimit(RLIMIT_FSIZE, %d): %w", l.FileBytes, err)
	}
	if !id.PerRun {
		return nil
	}
	if err := unix.Setrlimit(unix.RLIMIT_NPROC, &unix.Rlimit{Cur: l.Procs, Max: l.Procs}); err != nil {
		return fmt.Errorf("setrlimit(RLIMIT_NPROC, %d): %w", l.Procs, err)
	}
	return nil
}

// Watch samples what id's uid holds every interval until stop is called: where the uid is the
// run's own (PerRun), all of it is the run's launcher's. Past l.MemoryBytes every process of the
// uid is killed (as that uid) and a line says so; a count of processes and threads near l.Procs
// says the run was at that bound (the kernel refuses its forks there). stop gives the peak and those lines,
// each a reason the run fails. Elsewhere it watches nothing.
func (l Limits) Watch(id identity.Identity, interval time.Duration) (stop func() (Peak, []string)) {
	if !id.PerRun {
		return func() (Peak, []string) { return Peak{}, nil }
	}
	done, ended := make(chan struct{}), make(chan struct{})
	var peak Peak
	var over []string
	atProcs := false // said once
	start := time.Now()
	sample := func() {
		tasks, rss := id.Holds()
		peak.Tasks, peak.RSSBytes = max(peak.Tasks, tasks), max(peak.RSSBytes, rss)
		at := time.Since(start).Round(time.Second)
		if rss > l.MemoryBytes {
			killed := id.KillAll()
			over = append(over, fmt.Sprintf("the launcher's processes (uid %d) held %s of memory %v into the run, past its bound of %s (memory= in $%s): killed: %s",
				id.Uid, Size(rss), at, exact(l.MemoryBytes), contract.LauncherLimitsEnv, strings.Join(killed, "; ")))
		}
		if near, margin := l.AtProcs(tasks); near && !atProcs {
			atProcs = true
			over = append(over, fmt.Sprintf("the launcher's processes (uid %d) came within %d of their bound of %d processes and threads %v into the run (%d seen; RLIMIT_NPROC, procs= in $%s): the kernel refuses forks at it",
				id.Uid, margin, l.Procs, at, tasks, contract.LauncherLimitsEnv))
		}
	}
	go func() {
		defer close(ended)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				sample()
			}
		}
	}()
	return func() (Peak, []string) {
		close(done)
		<-ended
		return peak, over
	}
}

// InForce says which of l bind launcher processes that run as id (see Bound).
func (l Limits) InForce(id identity.Identity) string {
	if id.PerRun {
		return l.String()
	}
	return fmt.Sprintf("file=%s only (no uid of the run's own: processes and memory are not bounded)", exact(l.FileBytes))
}
