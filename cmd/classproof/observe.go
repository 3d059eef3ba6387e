package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"

	"github.com/classproof/classproof/helpers/oracle"
)

var observeCommand = command{"observe", "read processes with the oracle, as a spec would: ps, and the kernel's own readings (base pri on macOS)",
	"classproof observe 4242 4243", "0 every pid read; 1 one could not be read; 2 bad flags or no pid", observeCmd}

// observeCmd prints the oracle's line for each pid: ci/record-ps keeps it beside the runner's
// raw ps, so the base priority a lane's verdict rests on is recorded before the lane runs.
func observeCmd(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("observe", flag.ContinueOnError)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if fs.NArg() == 0 {
		return fail("observe", errors.New("give one or more pids"))
	}
	code := exitPassed
	for _, a := range fs.Args() {
		pid, err := strconv.Atoi(a)
		if err != nil || pid <= 0 {
			fmt.Fprintf(os.Stderr, "classproof observe: %q is not a pid\n", a)
			return exitUsage
		}
		o, err := oracle.ObserveOne("process", pid)
		if err != nil {
			fmt.Fprintf(os.Stderr, "classproof observe: %v\n", err)
			code = exitFailed
			continue
		}
		line := o.String()
		if d := oracle.DecidedBy(o, nil).String(); d != "" {
			line += " [" + d + "]"
		}
		fmt.Println(line)
	}
	return code
}
