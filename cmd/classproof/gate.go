package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/classproof/classproof/helpers/gate"
	"github.com/classproof/classproof/helpers/report"
	"github.com/classproof/classproof/helpers/report/actions"
)

// expectations are what the gate requires reports of: --lanes names, and --matrix's
// (lane, runner) pairs.
func expectations(lanes, matrix string) ([]string, error) {
	var expect []string
	if lanes != "" {
		expect = strings.Split(lanes, ",")
	}
	if matrix == "" {
		return expect, nil
	}
	pairs, err := gate.ParseMatrix(matrix)
	if err != nil {
		return nil, fmt.Errorf("--matrix: %w", err)
	}
	return append(expect, pairs...), nil
}

var gateCommand = command{"gate", "decide a release from every lane's reports",
	"classproof gate --reports out/lanes --required ci/required-specs.yaml", "0 pass; 1 blocked; 2 bad flags or an unreadable required list", gateCmd}

func gateCmd(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("gate", flag.ContinueOnError)
	reports := fs.String("reports", "out/lanes", "folder holding each lane's report folder (report.json + run.json), at any depth")
	required := fs.String("required", "ci/required-specs.yaml", "required specs per lane; empty for none")
	lanesFlag := fs.String("lanes", "", "comma-separated lanes that must have reports (default: every lane in the required list)")
	matrix := fs.String("matrix", "", `the workflow's lane matrix, JSON [{"lane": L, "runner": R}, ...]: each pair must have a complete report in REPORTS/R/L`)
	junit := fs.String("junit", "", "write a JUnit summary here (default: REPORTS/gate-junit.xml)")
	requireSandbox := fs.Bool("require-sandbox", false, "block every lane whose launcher ran without a sandbox (run.json sandboxed: false)")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	var req *gate.Required
	if *required != "" {
		var err error
		if req, err = gate.LoadRequired(*required); err != nil {
			return fail("gate", err)
		}
	}
	expect, err := expectations(*lanesFlag, *matrix)
	if err != nil {
		return fail("gate", err)
	}
	v, err := gate.EvaluateWith(*reports, req, expect, gate.Options{RequireSandbox: *requireSandbox})
	if err != nil {
		return fail("gate", err)
	}
	fmt.Print(v.Table())
	if actions.On() {
		for _, r := range v.Reasons {
			workflow.Error("classproof gate", r)
		}
		if err := actions.Summary("### classproof gate\n\n" + report.Fence(v.Table())); err != nil {
			fmt.Fprintln(os.Stderr, "classproof gate:", err)
		}
	}
	if *junit == "" {
		*junit = filepath.Join(*reports, "gate-junit.xml")
	}
	if err := v.WriteJUnit(*junit); err != nil {
		return fail("gate", fmt.Errorf("writing JUnit: %w", err))
	}
	return printGate(v)
}

// printGate prints the gate's closing lines; the exit code says the verdict.
func printGate(v *gate.Verdict) int {
	fmt.Print(v.Closing())
	if !v.Pass {
		return exitFailed
	}
	return exitPassed
}
