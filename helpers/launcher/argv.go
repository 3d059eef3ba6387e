package launcher

import (
	"fmt"

	"github.com/classproof/classproof/helpers/base/proctable"
)

// ArgvAsHanded checks that the session's harness runs with the arguments the kit handed in its
// profile's command (recorded with its report path: hand), byte for byte, as the kernel holds them (/proc/PID/cmdline on Linux,
// kern.procargs2 on macOS): neither the launcher's word nor the harness's. A launcher that passes
// a harness's argv through a shell (joined with spaces into sh -c) splits an argument with a
// space, expands a $ or a glob, and drops an empty one: the harness the profile names is then
// not what starts. argv[0] is not compared: isTheHarness has checked the program by its content,
// wherever it was started from.
func (s *Session) ArgvAsHanded() error {
	pid := s.Report.HarnessPid
	args, err := proctable.Args(pid)
	if err != nil {
		return fmt.Errorf("reading the arguments of the %s harness pid %d from the kernel: %w", s.Mode, pid, err)
	}
	// Read, then checked: the pid still runs the harness the report named (a pid reused in
	// between would lend its arguments).
	if in, lerr := proctable.Lookup(pid); lerr != nil || in.Start != s.Report.HarnessStart {
		return fmt.Errorf("%s harness pid %d: no longer the harness started at %d (it %s), so its arguments say nothing", s.Mode, pid, s.Report.HarnessStart, describePid(in, lerr))
	}
	handed := s.l.commandFor(s.report)
	if len(handed) == 0 {
		return fmt.Errorf("%s session for profile %s: the kit handed no harness command with %s to compare with", s.Mode, s.Profile, s.report)
	}
	if d := argvDiff(args[1:], handed[1:]); d != "" {
		return fmt.Errorf("%s harness pid %d (profile %s) does not run with the arguments its profile's command handed it: %s; the kernel says it runs %q, handed %q",
			s.Mode, pid, s.Profile, d, args, handed)
	}
	return nil
}

// argvDiff says where got first differs from want, arguments counted from 1 after the program;
// "" when they are the same.
func argvDiff(got, want []string) string {
	for i := 0; i < len(got) && i < len(want); i++ {
		if got[i] != want[i] {
			return fmt.Sprintf("argument %d is %q where %q was handed", i+1, got[i], want[i])
		}
	}
	switch {
	case len(got) < len(want):
		return fmt.Sprintf("it has %d arguments where %d were handed: argument %d, %q, is missing", len(got), len(want), len(got)+1, want[len(got)])
	case len(got) > len(want):
		return fmt.Sprintf("it has %d arguments where %d were handed: argument %d, %q, was never handed", len(got), len(want), len(want)+1, got[len(want)])
	}
	return ""
}
