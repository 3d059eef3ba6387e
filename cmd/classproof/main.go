// Command classproof runs the kit: `classproof run` runs the suites for one lane against a
// target launcher and prints what was proved. Its logic lives in helpers/; this is flags only:
// one file per command (run.go, redgreen.go, ...), each with its table entry.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/classproof/classproof/helpers/base/interrupt"
	"github.com/classproof/classproof/helpers/base/proc"
	"github.com/classproof/classproof/helpers/commands/actions"
)

// Exit codes, documented in README.md.
const (
	exitPassed = 0 // run passed; redgreen proven; gate pass; doctor drivable; mutants all caught
	exitFailed = 1 // a spec failed, a process leaked, the run was interrupted; not proven; blocked
	exitUsage  = 2 // bad flags, or a manifest, launcher, repository or list that cannot be used
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
	if leaks, err := proc.CloseContained(); len(leaks) > 0 || err != nil {
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
