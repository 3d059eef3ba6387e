package launcher

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/classproof/classproof/helpers/base/proctable"
)

// harnessArgs says whether pid runs the harness's code, with the arguments it runs it with: its own,
// or, where the dynamic loader runs it (ld.so HARNESS --report ...), those from the harness's path
// on. cantTell says why the kit cannot tell, for a live process it cannot read: a process whose
// executable reads as gone while its threads run (its leader thread exited: /proc/PID/exe is
// ENOENT, its other threads run on) is one, never "gone". A process that may be a stranger's
// (uncertain: found by a group or session id, or among launchd's children), one that ended and
// one on its way out are not harnesses then.
func harnessArgs(im proctable.Image, pid int, uncertain bool, deadline time.Time) (args []string, harness bool, cantTell string) {
	runs, err := im.RunBy(pid)
	if err != nil {
		if uncertain {
			return nil, false, ""
		}
		switch alive, aerr := proctable.Alive(pid); {
		case aerr != nil:
			return nil, false, fmt.Sprintf("the kit cannot read its executable (%v) nor tell whether it runs (%v), so cannot tell whether it runs the harness", err, aerr)
		case !alive || proctable.Exiting(pid):
			return nil, false, ""
		case gone(err):
			// No executable: its memory is gone. A process on its way out (between exit_mm
			// and its zombie; in exit_group its leader may be a zombie first) is none; one whose
			// leader ended while its threads run on is. Exiting is read after LeaderExited, so
			// a process that was on its way out when either was read is seen so.
			exited, lerr := proctable.LeaderExited(pid)
			switch {
			case lerr != nil && !gone(lerr):
				return nil, false, fmt.Sprintf("it runs, yet the kit cannot read its executable (%v) nor its state (%v), so cannot tell whether it runs the harness", err, lerr)
			case lerr != nil || !exited || proctable.Exiting(pid):
				return nil, false, ""
			}
		}
		args, _ := proctable.Args(pid)
		return args, false, fmt.Sprintf("it runs, yet the kit cannot read its executable (%v; a process whose main thread ended while its others run shows none), so cannot tell whether it runs the harness", err)
	}
	switch {
	case runs:
		// A harness the launcher is starting may be in the middle of exec: which report it
		// has is known once the kernel shows its arguments.
		args, err := proctable.ArgsAfterExec(pid, execWait, deadline)
		harness, cantTell = argsRead(true, err, func() (bool, error) { return proctable.Alive(pid) }, "it runs the harness's code")
		return args, harness, cantTell
	}
	// The arguments are read only where the loader runs; one in the middle of exec shows them late.
	var argsErr error
	args, loaded, err := im.LoadedBy(pid, func(pid int) ([]string, error) {
		a, err := proctable.ArgsAfterExec(pid, execWait, deadline)
		argsErr = err
		return a, err
	})
	if err != nil && argsErr == nil {
		// Its arguments read, but a file they name is one the kit cannot open or parse: the
		// program the loader runs may be the harness.
		switch alive, aerr := proctable.Alive(pid); {
		case aerr != nil:
			return args, false, fmt.Sprintf("the dynamic loader runs in it, and the kit can neither read the program it names (%v) nor tell whether it runs (%v)", err, aerr)
		case !alive:
			return nil, false, ""
		}
		return args, false, fmt.Sprintf("the dynamic loader runs in it, and the kit cannot read the program it names (%v), so cannot tell whether it runs the harness", err)
	}
	harness, cantTell = argsRead(loaded, err, func() (bool, error) { return proctable.Alive(pid) }, "the dynamic loader runs in it")
	return args, harness, cantTell
}

// argsRead decides, for a process whose code may be the harness's (runs: it is, where err is
// nil), from the error of reading its arguments: a harness; not one; or why the kit cannot tell,
// for a live process, whatever the error (what says what the kit knows of it). The kit that cannot
// read a harness's arguments never calls it "not a harness": macOS answers EINVAL for the
// arguments of another uid's process (XNU bsd/kern/kern_sysctl.c sysctl_procargsx), so a second
// harness a launcher started as another user (sudo -u) would pass for none. A process that ended
// since is none; one the kit cannot tell ended is not.
func argsRead(runs bool, err error, alive func() (bool, error), what string) (harness bool, cantTell string) {
	if err == nil {
		return runs, ""
	}
	live, aerr := alive()
	switch {
	case aerr != nil:
		return false, fmt.Sprintf("%s but the kit can neither read its arguments (%v) nor tell whether it runs (%v)", what, err, aerr)
	case !live:
		return false, ""
	case errors.Is(err, proctable.ErrNoArgs):
		return false, fmt.Sprintf("%s but shows no arguments (%v), so the kit cannot tell which report it has", what, err)
	}
	return false, fmt.Sprintf("%s but the kit cannot read its arguments (%v), so cannot tell which report it has", what, err)
}

// execWait is how long Account waits for a harness in the middle of exec to show its arguments.
const execWait = 2 * time.Second

// gone says a read of a process's file failed because the process, or its memory, is no more.
func gone(err error) bool { return errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ESRCH) }
