// Command classproof runs the kit: `classproof run` runs the suites for one lane against a
// target launcher and prints what was proved. Its logic lives in helpers/; here are the flags,
// one file per command (run.go, redgreen.go, ...) with its table entry, and exit.go, the one
// table from an error to an exit code.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/classproof/classproof/helpers/base/cgroup"
	"github.com/classproof/classproof/helpers/base/interrupt"
	"github.com/classproof/classproof/helpers/base/proc"
	"github.com/classproof/classproof/helpers/report/actions"
)

// workflow guards stdout in GitHub Actions: nothing a launcher prints acts as a workflow command
// (actions.Guard); the kit's own annotations go through it.
var workflow *actions.Guard

func main() {
	workflow = actions.Stop(os.Stdout)
	// The one signal listener: every command runs under ctx, which the first SIGINT or SIGTERM
	// ends; a second one escalates (helpers/base/interrupt).
	ctx, stop := interrupt.Notify(context.Background())
	code := dispatch(ctx, os.Args[1:])
	stop()
	// Before the guard lifts: nothing a launcher left could write to stdout after it.
	if leaks, err := cgroup.CloseContained(proc.Reap); len(leaks) > 0 || err != nil {
		for _, l := range leaks {
			fmt.Printf("LEAK: %s was still in classproof's cgroup at exit (killed now)\n", l)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "classproof:", err)
		}
		code = max(code, exitFailed)
	}
	workflow.Resume()
	os.Exit(code)
}
