package proctable

import (
	"errors"
	"fmt"
	"time"
)

// StarvedFactor bounds how much longer than its timeout the kit waits on a process that is
// runnable but not given a CPU, or waiting for the disk. Background class (SCHED_IDLE, I/O class
// idle) means exactly that under a foreground load that fills every core or the disk; such a
// process is not hung, and failing a spec for it would blame the launcher for keeping its
// promise. A process asleep on anything else (a hang, a stop) gets no more time.
const StarvedFactor = 30

// Starved says whether any of pids, or anything below them, has a thread that is runnable but
// waiting for a CPU (see StarvedFactor), and what the kit read that says so; "" when none has. A
// harness may itself sleep while it waits for the tool it forked, which is the one starved. A
// table it cannot read shows no starvation: the wait then ends at its timeout, never later.
func Starved(pids ...int) string {
	below, _ := Descendants(pids...)
	for _, pid := range append(pids, below...) {
		if why := starved(pid); why != "" {
			return why
		}
	}
	return ""
}

// ArgsAfterExec is Args of a process that may be in the middle of exec (ErrNoArgs): it reads
// again every few milliseconds while the process lives, for up to wait, and up to StarvedFactor
// times that while it is starved, never past deadline (a caller's bound over many processes). A
// process that ends, or still shows none, returns Args's error.
func ArgsAfterExec(pid int, wait time.Duration, deadline time.Time) ([]string, error) {
	start := time.Now()
	for {
		args, err := Args(pid)
		if !errors.Is(err, ErrNoArgs) {
			return args, err
		}
		if alive, aerr := Alive(pid); aerr != nil || !alive {
			return args, errors.Join(err, aerr) // ended (ErrNoArgs), or the kit cannot tell
		}
		waited := time.Since(start)
		if waited > StarvedFactor*wait || (waited > wait && starved(pid) == "") || time.Now().After(deadline) {
			return nil, fmt.Errorf("%w after %v", err, waited.Round(time.Millisecond))
		}
		time.Sleep(2 * time.Millisecond)
	}
}
