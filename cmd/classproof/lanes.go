package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/classproof/classproof/helpers/lane"
)

var lanesCommand = command{"lanes", "the lane names, one a line", "classproof lanes", "0", lanesCmd}

func lanesCmd(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("lanes", flag.ContinueOnError)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	// ci/lane-check holds ci/lane to this list.
	fmt.Println(strings.Join(laneNames(), "\n"))
	return exitPassed
}

func laneNames() []string { return lane.Names() }
