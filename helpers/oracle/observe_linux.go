package oracle

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/classproof/classproof/helpers/base/proctable"
)

const ioprioWhoProcess = 1

// addPlatform adds what ps does not show: the policy as the kernel states it (ps cls and /proc
// must agree), the I/O class, the autogroup, and with everyThread each thread's class.
func addPlatform(o *Observation, everyThread bool) error {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", o.Pid))
	if err != nil {
		return fmt.Errorf("reading /proc stat: %w", err)
	}
	st, err := proctable.ParseStat(stat)
	if err != nil {
		return err
	}
	policy := st.Policy
	if st.State == 'Z' {
		return errors.New("a zombie (exited, not yet reaped): its class proves nothing")
	}
	o.Policy = policy
	if (o.Cls == "IDL") != (policy == 5) {
		return fmt.Errorf("ps cls %s and /proc policy %d disagree", o.Cls, policy)
	}
	r, _, e := unix.Syscall(unix.SYS_IOPRIO_GET, ioprioWhoProcess, uintptr(o.Pid), 0)
	if e != 0 {
		return fmt.Errorf("ioprio_get: %w", e)
	}
	o.IOClass = int(r) >> 13 // the level below it is not part of the class
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/autogroup", o.Pid)); err == nil {
		if o.Autogroup, o.AutogroupNice, err = ParseAutogroup(b); err != nil {
			return err
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("reading autogroup: %w", err)
	}
	if everyThread {
		main := threadClass{policy: st.Policy, nice: st.Nice, rt: st.RTPriority, ioprio: effectiveIO(r)}
		return o.readThreads(main)
	}
	return nil
}

// KernelSettings is, in one string, every kernel setting a Linux Observation of pid is made of:
// the priority, nice value, policy and real-time priority of /proc/PID/stat (the line ps reads
// its cls, ni and pri from), the I/O priority and the autogroup. Two equal strings mean ps and
// addPlatform would read the same class; the kit uses it to skip a ps call that could only
// confirm (its own class, checked after every spec), never to judge a launcher's process.
func KernelSettings(pid int) (string, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", err
	}
	st, err := proctable.ParseStat(stat)
	if err != nil {
		return "", err
	}
	r, _, e := unix.Syscall(unix.SYS_IOPRIO_GET, ioprioWhoProcess, uintptr(pid), 0)
	if e != 0 {
		return "", fmt.Errorf("ioprio_get: %w", e)
	}
	ag, err := os.ReadFile(fmt.Sprintf("/proc/%d/autogroup", pid))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	return fmt.Sprintf("priority %d nice %d policy %d rt %d ioprio %d autogroup %q", st.Priority, st.Nice, st.Policy, st.RTPriority, r, ag), nil
}
