package main

import (
	"context"
	"flag"
	"os"
	"time"

	"github.com/classproof/classproof/fixtures/targets"
	"github.com/classproof/classproof/helpers/commands/doctor"
	"github.com/classproof/classproof/helpers/runner"
)

var doctorCommand = command{"doctor", "try a launcher once, for a first manifest: what it does, what the kit will leave out",
	"classproof doctor --target ./classproof.yaml", "0 the launcher can be driven; 1 it cannot; 2 an unusable manifest or launcher", doctorCmd}

func doctorCmd(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	o := doctor.Options{Out: os.Stdout, Timeout: 10 * time.Second}
	var ref, repo string
	var vars []string
	fs.StringVar(&ref, "target", "", "target manifest (default: the embedded refmux.yaml)")
	fs.StringVar(&repo, "repo", "", "the launcher's source tree, for the manifest's {repo} (default: the root of the git repository you are in, else this folder)")
	fs.Var(runner.List{To: &vars}, "var", "NAME=VALUE for the manifest (repeatable)")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	var err error
	if repo, err = repoDir(repo); err == nil {
		o.Target, err = targets.Resolve(ref, "", vars, repo)
	}
	if err != nil {
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
