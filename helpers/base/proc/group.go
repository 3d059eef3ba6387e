package proc

import (
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// EndGroup kills what is left in process group pgid (a command the kit ran in a group of its
// own, which has exited: what it forked and left running) and waits until no process of the
// group is left, up to timeout. A translated spawn spec is handed on only after this: nothing
// the translator left behind may change it once it was judged. Each is signalled only while it
// is still the process that was read (kill); one that forks meanwhile is read on the next look.
// A process that left the group (setsid) is not found here: what it can no longer change is the
// caller's to ensure; it dies with the rest at the spec's end.
func (s *Set) EndGroup(role string, pgid int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		all, err := s.table()
		if err != nil {
			return fmt.Errorf("reading what %s left running (process group %d): %w", role, pgid, err)
		}
		var left []string
		for _, in := range all {
			if in.Pgid == pgid && !in.Zombie {
				kill(Entry{Pid: in.Pid, Start: in.Start})
				left = append(left, fmt.Sprintf("pid %d", in.Pid))
			}
		}
		if len(left) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s left processes running in its group %d still alive %v after SIGKILL: %s", role, pgid, timeout, strings.Join(left, ", "))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Command prepares cmd to run in a process group of its own that is killed as a whole when its
// context ends, and stops waiting for its output a moment after it exits even if something it
// forked holds the pipe: a timeout then bounds the command and everything it started.
func Command(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.Cancel = func() error { return unix.Kill(-cmd.Process.Pid, unix.SIGKILL) }
	cmd.WaitDelay = time.Second
}
