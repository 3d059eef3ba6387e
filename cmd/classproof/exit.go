package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/classproof/classproof/helpers/commands/mutants"
	"github.com/classproof/classproof/helpers/gate"
	"github.com/classproof/classproof/helpers/runner"
)

// Exit codes, documented in README.md and in each command's help (command.exits).
const (
	exitPassed = 0 // run passed; redgreen proven; gate pass; doctor drivable; mutants all caught
	exitFailed = 1 // a spec failed, a process leaked, the run was interrupted; not proven; blocked; disagrees
	exitUsage  = 2 // bad flags, or a manifest, launcher, repository or list that cannot be used; a report not written
)

// exitFor is the one place an error becomes an exit code. An error is a 2 (the command could not
// do its work) unless it says the verdict is no: an interrupt, a leak scan that could not finish
// after the specs ran (no one can say nothing leaked), a required-spec list that disagrees.
func exitFor(err error) int {
	var (
		disagrees gate.Disagreement
		ended     *runner.EndError
	)
	switch {
	case err == nil:
		return exitPassed
	case errors.As(err, &disagrees):
		return exitFailed
	case errors.Is(err, mutants.ErrInterrupted), errors.Is(err, context.Canceled):
		return exitFailed
	case errors.As(err, &ended) && ended.Step == runner.EndSweep:
		return exitFailed
	}
	return exitUsage // anything else: the work could not be done (a launcher that cannot be made ready too)
}

// fail says err once, on stderr, under the command's name ("" for the CLI itself), and is its
// exit code (exitFor).
func fail(cmd string, err error) int {
	prefix := "classproof"
	if cmd != "" {
		prefix += " " + cmd
	}
	fmt.Fprintf(os.Stderr, "%s: %v\n", prefix, err)
	return exitFor(err)
}
