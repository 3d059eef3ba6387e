package oracle

import (
	"os/exec"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// KernelSettings changes with every setting a class is read from (the kit skips a ps call on
// its own class only while the string is unchanged): nice, the policy, the I/O class.
func TestKernelSettingsChangeWithEveryClassSetting(t *testing.T) {
	for _, c := range []struct {
		what   string
		change func(pid int) error
	}{
		{"nice +5", func(pid int) error { return unix.Setpriority(unix.PRIO_PROCESS, pid, 5) }},
		{"SCHED_IDLE", func(pid int) error { return exec.Command("chrt", "-i", "-p", "0", strconv.Itoa(pid)).Run() }},
		{"I/O class idle", func(pid int) error { return exec.Command("ionice", "-c", "3", "-p", strconv.Itoa(pid)).Run() }},
	} {
		cmd := exec.Command("sleep", "30")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pid := cmd.Process.Pid
		before, err := KernelSettings(pid)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.change(pid); err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		after, err := KernelSettings(pid)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if err != nil || after == before {
			t.Errorf("%s: the kernel settings read %q before and %q (%v) after: a change the kit would not see", c.what, before, after, err)
		}
	}
}
