package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"

	"github.com/classproof/classproof/fixtures/targets"
	"github.com/classproof/classproof/helpers/commands/mutants"
)

var mutantsCommand = command{"mutants", "run the suites against every known-broken build of a target: which specs catch each",
	"classproof mutants --values-file out/variants.tsv --target embedded:refmux.yaml", "0 every variant caught; 1 one was not; 2 bad flags or no Go", needsGo("mutants", "it builds each known-broken variant of the launcher", mutantsCmd)}

func mutantsCmd(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("mutants", flag.ContinueOnError)
	var o mutants.Options
	var targetsFlag multi
	fs.Var(&targetsFlag, "target", "a manifest (repeatable; default: embedded:refmux.yaml)")
	fs.StringVar(&o.Var, "var", "variant", "the manifest var that selects a broken build")
	valuesFile := fs.String("values-file", "", "the variants, one per line: NAME<TAB>what it breaks[<TAB>only=GOOS: why] (e.g. from 'go run ./fixtures/refmux variants')")
	fs.StringVar(&o.OutDir, "out", "out/mutants", "folder for matrix.md, matrix.json and each run's reports")
	fs.IntVar(&o.Jobs, "jobs", runtime.NumCPU(), "runs side by side (each a whole run of its lane)")
	fs.IntVar(&o.Procs, "procs", 1, "Ginkgo parallel processes")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if len(targetsFlag) == 0 {
		targetsFlag = multi{"embedded:refmux.yaml"}
	}
	for _, spec := range targetsFlag {
		t, err := targets.Resolve(spec, "", nil, "")
		if err != nil {
			fmt.Fprintln(os.Stderr, "classproof mutants:", err)
			return exitUsage
		}
		o.Targets = append(o.Targets, t)
	}
	b, err := os.ReadFile(*valuesFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "classproof mutants: --values-file:", err)
		return exitUsage
	}
	if o.Values, err = mutants.ParseValues(*valuesFile, b); err != nil {
		fmt.Fprintln(os.Stderr, "classproof mutants: --values-file:", err)
		return exitUsage
	}
	o.Progress = os.Stderr
	m, err := mutants.Kill(ctx, o)
	if errors.Is(err, mutants.ErrInterrupted) {
		fmt.Println("classproof mutants:", err)
		return exitFailed
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "classproof mutants:", err)
		return exitUsage
	}
	fmt.Print(mutants.Markdown(m))
	caught, notCaught, leftOut := m.Counts()
	if !m.OK {
		fmt.Printf("\nclassproof mutants: %d of %d variants were caught by no spec\n", notCaught, caught+notCaught)
		return exitFailed
	}
	fmt.Printf("\nclassproof mutants: all %d variants caught", caught)
	if leftOut > 0 {
		fmt.Printf(" (%d left out on %s: they mean nothing there)", leftOut, runtime.GOOS)
	}
	fmt.Println()
	return exitPassed
}
