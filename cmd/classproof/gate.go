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
	"github.com/classproof/classproof/helpers/runner"
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

// gateFlags are the gate's flags: it runs no suites, so it takes none of the run flags.
type gateFlags struct {
	reports, required, lanes, matrix, junit string
	requireSandbox                          bool
}

func (g *gateFlags) table() runner.Table {
	return runner.Table{
		{Name: "reports", Str: &g.reports, Usage: "folder holding each lane's report folder (report.json + run.json), at any depth"},
		{Name: "required", Str: &g.required, Usage: "required specs per lane; empty for none"},
		{Name: "lanes", Str: &g.lanes, Usage: "comma-separated lanes that must have reports (default: every lane in the required list)"},
		{Name: "matrix", Str: &g.matrix, Usage: `the workflow's lane matrix, JSON [{"lane": L, "runner": R}, ...]: each pair must have a complete report in REPORTS/R/L`},
		{Name: "junit", Str: &g.junit, Usage: "write a JUnit summary here (default: REPORTS/gate-junit.xml)"},
		{Name: "require-sandbox", On: &g.requireSandbox, Usage: "block every lane whose launcher ran without a sandbox (run.json sandboxed: false)"},
	}
}

func gateCmd(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("gate", flag.ContinueOnError)
	g := gateFlags{reports: "out/lanes", required: "ci/required-specs.yaml"}
	g.table().Define(fs)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	var req *gate.Required
	if g.required != "" {
		var err error
		if req, err = gate.LoadRequired(g.required); err != nil {
			return fail("gate", err)
		}
	}
	expect, err := expectations(g.lanes, g.matrix)
	if err != nil {
		return fail("gate", err)
	}
	v, err := gate.EvaluateWith(g.reports, req, expect, gate.Options{RequireSandbox: g.requireSandbox})
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
	if g.junit == "" {
		g.junit = filepath.Join(g.reports, "gate-junit.xml")
	}
	if err := v.WriteJUnit(g.junit); err != nil {
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
