package target

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/classproof/classproof/helpers/proc"
)

// start is the one way the kit starts a launcher process: its build step, daemon, host and
// every client command (sessions, config, explain, spawn specs), wherever the kit builds or runs
// it (run's preflight, the suites' own fallback, red/green's sides, bench, dist, doctor). Here
// is where containment lives (proc.Set.Contain): a process group of its own, killed as a whole
// when ctx ends, and on Linux the set's cgroup, which nothing the process forks can leave. Its
// output goes to out through a pipe the kit drains itself, never to a file of the kit's: a
// launcher process that outlives its spec then holds no stdout or stderr of the kit's, and
// nothing it writes after the run can reach a CI runner's log.
func (d *Driver) start(ctx context.Context, set *proc.Set, role string, argv []string, dir string, env []string, out io.Writer) (*exec.Cmd, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	proc.Command(cmd) // ctx's end kills the group; Wait gives up on a pipe held after the exit
	if err := set.Contain(cmd); err != nil {
		return nil, err
	}
	// Hidden behind a plain writer, even an *os.File gets a pipe from os/exec (see exec.Cmd.Stdout).
	cmd.Stdout = drained{out}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s %q: %w", role, strings.Join(argv, " "), err)
	}
	// Tracked while it runs: a cleanup (an interrupt mid-command) kills its group too.
	set.TrackOwned(d.Manifest.Name+" "+role, cmd.Process.Pid)
	return cmd, nil
}

type drained struct{ w io.Writer }

func (d drained) Write(p []byte) (int, error) { return d.w.Write(p) }
