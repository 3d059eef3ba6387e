package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/classproof/classproof/fixtures/targets"
	"github.com/classproof/classproof/helpers/commands/mutants"
	"github.com/classproof/classproof/helpers/runner"
)

var mutantsCommand = command{"mutants", "run the suites against every known-broken build of a target: which specs catch each",
	"classproof mutants --values-file out/variants.tsv --target embedded:refmux.yaml\n  classproof mutants --values-file out/variants.tsv --shard 2/3 --out out/part2\n  classproof mutants merge --out out/mutants out/part*/part-*-of-3.json",
	"0 every variant caught (a shard: its part written); 1 one was not, or interrupted; 2 bad flags, parts that do not make one matrix, or no Go", mutantsEntry}

// mutantsEntry: merge joins parts and needs no Go; everything else builds variants.
func mutantsEntry(ctx context.Context, args []string) int {
	if len(args) > 0 && args[0] == "merge" {
		return mergeCmd(args[1:])
	}
	return needsGo("mutants", "it builds each known-broken variant of the launcher", mutantsCmd)(ctx, args)
}

// mutantsRunFlags is mutants' share of the run flags: the targets', --procs and --focus, and the
// bounds.
var mutantsRunFlags = runner.Share{Takes: runner.TargetFlags | runner.FlagProcs | runner.FlagFocus | runner.BoundFlags,
	Defaults: runner.RunFlags{Procs: 1, Timeout: 3 * time.Hour, Out: "out/mutants"},
	Out:      "folder for matrix.md, matrix.json and each run's reports",
	Bounds:   "the whole matrix: the baseline, every variant's build and runs"}

// mutantsFlags are mutants' flags: the matrix's options, the files and faults that make its rows
// and cells, and its share of the run flags.
type mutantsFlags struct {
	o                                mutants.Options
	valuesFile, first, shard, inject string
	runner.RunFlags
}

func (m *mutantsFlags) table() runner.Table {
	own := runner.Table{
		{Name: "build-var", Str: &m.o.Var, Usage: "the manifest var whose value builds each variant of --values-file (NAME; the reference build keeps the manifest's own value)"},
		{Name: "values-file", Str: &m.valuesFile, Usage: "the variants, one per line: NAME<TAB>what it breaks[<TAB>only=GOOS: why][<TAB>sites=SITE,...] (e.g. from 'go run ./fixtures/refmux variants')"},
		{Name: "jobs", Num: &m.o.Jobs, Usage: "runs side by side (each a whole run of its lane)"},
		{Name: "no-probe", On: &m.o.NoProbe, Usage: "run every row's lanes whole, as before the probe (by default the reference runs under a probe that counts each class call (Linux) and records the sites its specs reach (sites_env), and a fault row runs only the specs where its call came, a variant with sites only those where one was reached)"},
		{Name: "until-caught", On: &m.o.UntilCaught, Usage: "stop each variant's lane at its first spec that fails by its own assertion (a yes/no answer; the full table is the default)"},
		{Name: "first", Str: &m.first, Usage: "with --until-caught: a full table's first.tsv; each variant tries first, on each lane, the spec it names for it, and the rest only if that misses"},
		{Name: "shard", Str: &m.shard, Usage: "K/N: run share K of N of the cells and write part-K-of-N.json in --out ('classproof mutants merge' joins the parts)"},
		{Name: "inject", Str: &m.inject, Usage: "Linux: also a row per injected fault, for any launcher without its source: 'all', or names from sched_setscheduler,sched_setattr,ioprio_set,setpriority (each made a silent success in every launcher process); with it --values-file may be left out"},
	}
	return append(own, m.RunFlags.Table(mutantsRunFlags)...)
}

func mutantsCmd(ctx context.Context, args []string) int {
	start := time.Now()
	fs := flag.NewFlagSet("mutants", flag.ContinueOnError)
	mf := mutantsFlags{o: mutants.Options{Var: "variant", Jobs: runtime.NumCPU()}, RunFlags: mutantsRunFlags.Defaults}
	mf.table().Define(fs)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	o, f := mf.o, mf.RunFlags
	o.OutDir, o.Procs, o.Focus, o.Deadline = f.Out, f.Procs, f.Focus, f.Deadline(start)
	if mf.shard != "" {
		var err error
		if o.Shard, err = mutants.ParseShard(mf.shard); err != nil {
			return fail("mutants", err)
		}
	}
	if err := readFirst(&o, mf.first); err != nil {
		return fail("mutants", fmt.Errorf("--first: %w", err))
	}
	targetsFlag := f.Targets
	if len(targetsFlag) == 0 {
		targetsFlag = []string{"embedded:refmux.yaml"}
	}
	var err error
	if o.Values, err = values(mf.valuesFile, mf.inject); err != nil {
		return fail("mutants", err)
	}
	for _, ref := range targetsFlag {
		repo, err := repoFor(f.Repo, ref, os.Stderr)
		if err != nil {
			return fail("mutants", err)
		}
		t, err := targets.Resolve(ref, "", f.Vars, repo)
		if err == nil {
			err = mutants.CanBuild(t, o.Var, o.Values)
		}
		if err != nil {
			return fail("mutants", err)
		}
		o.Targets = append(o.Targets, t)
	}
	o.Progress = os.Stderr
	if o.Shard.Of > 0 {
		return shardRun(ctx, o)
	}
	m, err := mutants.Kill(ctx, o)
	if code, failed := matrixFailed(err); failed {
		return code
	}
	return verdict(m)
}

// readFirst reads --first's file into o: under --until-caught, the spec each variant tries
// first on each lane.
func readFirst(o *mutants.Options, path string) error {
	if path == "" {
		return nil
	}
	if !o.UntilCaught {
		return fmt.Errorf("%s needs --until-caught: the full table runs every spec of every lane", path)
	}
	b, err := os.ReadFile(path)
	if err == nil {
		o.First, err = mutants.ParseFirst(path, b)
	}
	o.FirstSource = path
	return err
}

// matrixFailed says how a matrix (or a share) that ended in err exits (exitFor: interrupted is
// a failed run, anything else a run that could not be made).
func matrixFailed(err error) (int, bool) {
	switch {
	case err == nil:
		return 0, false
	case errors.Is(err, mutants.ErrInterrupted):
		fmt.Println("classproof mutants:", err) // the matrix's verdict line: on stdout, with the rest
		return exitFor(err), true
	}
	return fail("mutants", err), true
}

// verdict prints a whole matrix (one run's or merged parts') and its exit code.
func verdict(m *mutants.Matrix) int {
	fmt.Print(mutants.Markdown(m))
	caught, notCaught, leftOut := m.Counts()
	if !m.OK {
		fmt.Printf("\nclassproof mutants: %d of %d variants were caught by no spec\n", notCaught, caught+notCaught)
		return exitFailed
	}
	fmt.Printf("\nclassproof mutants: all %d variants caught", caught)
	if leftOut > 0 {
		fmt.Printf(" (%d neither caught nor missed: left out on %s, or an injected fault that never fired; see above)", leftOut, runtime.GOOS)
	}
	fmt.Println()
	return exitPassed
}

func shardRun(ctx context.Context, o mutants.Options) int {
	p, err := mutants.RunShard(ctx, o)
	if code, failed := matrixFailed(err); failed {
		return code
	}
	fmt.Printf("classproof mutants: share %s: the baseline passed on %d lanes, %d cells ran in %.0fs; part written to %s\n",
		o.Shard, len(p.Baseline), len(p.Cells), p.Wall, filepath.Join(o.OutDir, mutants.PartFile(o.Shard)))
	fmt.Printf("classproof mutants: no verdict yet (a variant's other lanes may be in another share): merge every part with 'classproof mutants merge --out DIR PART...'\n")
	return exitPassed
}

var mergeCommand = command{"mutants merge", "join the parts that 'classproof mutants --shard K/N' wrote into the matrix one run would write (refusing a missing, duplicate or mismatched part, named)",
	"classproof mutants merge --out out/mutants out/part1/part-1-of-3.json out/part2/part-2-of-3.json out/part3/part-3-of-3.json",
	"0 every variant caught; 1 one was not; 2 the parts do not make one matrix (named), or bad flags", nil}

// mergeRunFlags is mutants merge's share of the run flags: where it writes.
var mergeRunFlags = runner.Share{Takes: runner.FlagOut, Defaults: runner.RunFlags{Out: "out/mutants"},
	Out: "folder for the merged matrix.md and matrix.json"}

func mergeCmd(args []string) int {
	fs := flag.NewFlagSet("mutants merge", flag.ContinueOnError)
	f := mergeRunFlags.Defaults
	f.Table(mergeRunFlags).Define(fs)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if fs.NArg() == 0 {
		return fail("mutants merge", errors.New("no parts given: name every part-K-of-N.json that 'classproof mutants --shard K/N' wrote"))
	}
	if err := os.MkdirAll(f.Out, 0o755); err != nil {
		return fail("mutants merge", err)
	}
	m, err := mutants.Merge(f.Out, fs.Args())
	if err != nil {
		return fail("mutants merge", fmt.Errorf("refused: %w", err))
	}
	return verdict(m)
}

// values are the matrix's rows: the variants of --values-file, then the faults of --inject.
func values(file, inject string) ([]mutants.Value, error) {
	var out []mutants.Value
	if file != "" || inject == "" {
		b, err := os.ReadFile(file)
		if err == nil {
			out, err = mutants.ParseValues(file, b)
		}
		if err != nil {
			return nil, fmt.Errorf("--values-file: %w", err)
		}
	}
	if inject == "" {
		return out, nil
	}
	faults, err := mutants.Injected(strings.Split(inject, ","))
	if err != nil {
		return nil, fmt.Errorf("--inject: %w", err)
	}
	return append(out, faults...), nil
}
