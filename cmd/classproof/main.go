// Command classproof runs the kit: `classproof run` runs the suites for one lane against a
// target launcher and prints what was proved. Its logic lives in helpers/; this is flags only.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/classproof/classproof/helpers/runner"
)

// Exit codes, documented in README.md.
const (
	exitPassed = 0
	exitFailed = 1 // a spec failed, a process leaked, or the run was interrupted
	exitUsage  = 2 // bad flags, or a target manifest that cannot be used
)

const usage = `usage: classproof COMMAND [flags]

  run     run the suites for this machine's lane against a target launcher

Run 'classproof COMMAND -h' for a command's flags.
`

type multi []string

func (m *multi) String() string     { return strings.Join(*m, " ") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(exitUsage)
	}
	switch os.Args[1] {
	case "run":
		os.Exit(runCmd(os.Args[2:]))
	case "-h", "--help", "help":
		fmt.Print(usage)
	default:
		fmt.Fprintf(os.Stderr, "classproof: unknown command %q\n%s", os.Args[1], usage)
		os.Exit(exitUsage)
	}
}

func runCmd(args []string) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var o runner.Options
	var vars, suites multi
	fs.StringVar(&o.Target, "target", "", "target manifest (default: the embedded refmux.yaml)")
	fs.Var(&vars, "var", "NAME=VALUE: set a var the manifest declares (repeatable), e.g. variant=noclass")
	fs.StringVar(&o.Lane, "lane", "", "darwin, linux-idle or linux-ignore (default: this OS's lane for the target; another is refused)")
	fs.Var(&suites, "suite", "a suite to run, e.g. ./suites/cpuclass (repeatable; default: all)")
	fs.StringVar(&o.OutDir, "out", "out/run", "folder for report.json, junit.xml and the pid ledger")
	fs.IntVar(&o.Procs, "procs", 1, "Ginkgo parallel processes")
	fs.StringVar(&o.LabelFilter, "label-filter", "", "a further Ginkgo label filter, ANDed with the lane's")
	fs.StringVar(&o.Focus, "focus", "", "a Ginkgo focus regexp")
	fs.DurationVar(&o.Timeout, "timeout", 30*time.Minute, "suite timeout")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	o.Vars, o.Suites, o.Log = vars, suites, os.Stdout
	kitDir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/classproof/classproof").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "classproof: finding the classproof module (run from inside it):", err)
		return exitUsage
	}
	o.KitDir = strings.TrimSpace(string(kitDir))
	res, err := runner.Run(context.Background(), o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "classproof:", err)
		return exitUsage
	}
	fmt.Println()
	if res.Run != nil {
		fmt.Print(res.Run.Summary(res.Filter))
	} else {
		fmt.Println("classproof: no report was written (the run stopped before Ginkgo reported)")
	}
	for _, l := range res.Leaks {
		fmt.Printf("LEAK: %s was still alive after the run (killed now)\n", l)
	}
	fmt.Printf("reports: %s, %s (%.1fs)\n", res.ReportPath, res.JUnitPath, res.Duration.Seconds())
	if res.Run != nil {
		c := res.Run.Count()
		fmt.Printf("classproof: %d passed, %d failed, %d skipped\n", c.Passed, c.Failed, c.Skipped)
	}
	if !res.Passed() {
		return exitFailed
	}
	return exitPassed
}
