package proc

import (
	"fmt"
	"os"
	"time"
)

// Supervisor is the value of contract.SupervisorEnv for this process.
func Supervisor() string {
	in, _ := Lookup(os.Getpid())
	return fmt.Sprintf("%d %d", os.Getpid(), in.Start)
}

// Watch calls gone once, when the supervisor named by value ("PID START") no longer exists: a
// run whose CLI was killed (kill -9 leaves no chance to forward anything) must not go on alone.
// It polls every interval; a value it cannot read means no supervisor, and it returns at once.
func Watch(value string, interval time.Duration, gone func()) {
	e, ok := parseSupervisor(value)
	if !ok {
		return
	}
	go func() {
		for e.live() {
			time.Sleep(interval)
		}
		gone()
	}()
}

// Exists says whether the process a contract.SupervisorEnv value ("PID START") names is still alive.
func Exists(value string) bool {
	e, ok := parseSupervisor(value)
	return ok && e.live()
}

func parseSupervisor(value string) (Entry, bool) {
	var e Entry
	if _, err := fmt.Sscanf(value, "%d %d", &e.Pid, &e.Start); err != nil || e.Pid <= 0 || e.Start == 0 {
		return Entry{}, false
	}
	return e, true
}
