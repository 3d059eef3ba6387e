package main

import (
	"context"
	"flag"
	"os"
	"time"

	"github.com/classproof/classproof/helpers/commands/doctor"
	"github.com/classproof/classproof/helpers/runner"
)

var doctorCommand = command{"doctor", "try a launcher once, for a first manifest: what it does, what the kit will leave out",
	"classproof doctor --target ./classproof.yaml", "0 the launcher can be driven; 1 it cannot; 2 an unusable manifest or launcher", doctorCmd}

// doctorFlags is doctor's share of the run flags: the target's.
var doctorFlags = runner.Share{Takes: runner.TargetFlags}

func doctorCmd(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	o := doctor.Options{Out: os.Stdout, Timeout: 10 * time.Second}
	f := doctorFlags.Defaults
	f.Table(doctorFlags).Define(fs)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	var err error
	if o.Target, err = resolveTarget(f); err != nil {
		return fail("doctor", err)
	}
	r, err := doctor.Run(ctx, o)
	if err != nil {
		return fail("doctor", err)
	}
	if !r.Drivable {
		return exitFailed
	}
	return exitPassed
}
