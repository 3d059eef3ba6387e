package oracle

import (
	"errors"
	"strings"

	"github.com/classproof/classproof/helpers/base/proctable"
)

// addPlatform adds the task's base priority, a second outside view beside ps: pti_priority of
// proc_pidinfo PROC_PIDTASKINFO (helpers/base/proctable reads it; fill_taskprocinfo in XNU
// osfmk/kern/bsd_kern.c copies task->priority). A zombie, which ps shows with stat Z and pri 0,
// proves nothing. Compiled, not run on macOS by this project (no Mac here).
func addPlatform(o *Observation) error {
	if strings.HasPrefix(o.Stat, "Z") {
		return errors.New("a zombie (exited, not yet reaped): its class proves nothing")
	}
	t, err := proctable.TaskInfoOf(o.Pid)
	if err != nil {
		o.BaseErr = err.Error()
		return nil
	}
	o.BasePri, o.BaseRead = int(t.Priority), true
	return nil
}

// KernelSettings has no fast reading on macOS: the kit's own class is read with ps there.
func KernelSettings(int) (string, error) {
	return "", errors.New("no kernel settings reading on macOS: read with ps")
}
