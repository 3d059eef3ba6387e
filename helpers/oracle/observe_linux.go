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
// must agree), the I/O class, and the autogroup.
func addPlatform(o *Observation) error {
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
	return nil
}
