// Command foreign is `make foreign`, a standing guard (issue 66): every correct launcher written
// outside this project (the folder ../shared/foreign beside the repository: one folder per
// launcher, each holding its manifests) runs in every lane it has a manifest for, one after
// another, and any red fails it. A spec that fails a correct launcher is a false red until shown
// otherwise; this is where one shows first.
//
// Each run is `classproof run --target MANIFEST --repo LAUNCHER --out OUT/LAUNCHER/MANIFEST`,
// judged by the release gate's own rule (helpers/gate, over that run's report.json and run.json):
// each failure is named with the launcher, the lane, the manifest, the spec and the first line of
// its failure. A run the kit could not even start (exit 2) is named with the kit's message. A
// folder that does not exist is said and passes; one that holds no manifest fails.
//
//	go run ./ci/foreign [--dir ../shared/foreign] [--cli bin/classproof] [--out out/foreign] [classproof run flags...]
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/report/actions"
)

func main() {
	dir := flag.String("dir", "../shared/foreign", "the folder of foreign launchers: one folder each, holding its manifests (*.yaml)")
	cli := flag.String("cli", "bin/classproof", "the classproof CLI to run")
	out := flag.String("out", "out/foreign", "where each run's reports go: OUT/LAUNCHER/MANIFEST")
	flag.Parse()
	// Launchers' words reach this log (failure lines); in GitHub Actions none may act as a
	// workflow command (actions.Guard).
	g := actions.Stop(os.Stdout)
	code := guard(config{dir: *dir, cli: *cli, out: *out, extra: flag.Args()}, os.Stdout)
	g.Resume()
	os.Exit(code)
}

// config is one make foreign.
type config struct {
	dir, cli, out string
	extra         []string // further classproof run flags, after ours
}

// guard is make foreign: its exit code (0 every run passed or there is no folder, 1 a run
// failed, 2 the folder could not be read).
func guard(c config, w io.Writer) int {
	fi, err := os.Stat(c.dir)
	switch {
	case os.IsNotExist(err):
		fmt.Fprintf(w, "foreign: %s does not exist: no foreign launchers to run here (in CI they sit at ../shared/foreign beside the clone); passing\n", c.dir)
		return 0
	case err != nil:
		fmt.Fprintf(w, "foreign: %v\n", err)
		return 2
	case !fi.IsDir():
		fmt.Fprintf(w, "foreign: %s is not a folder\n", c.dir)
		return 2
	}
	targets, notes, err := discover(c.dir)
	if err != nil {
		fmt.Fprintf(w, "foreign: %v\n", err)
		return 2
	}
	for _, n := range notes {
		fmt.Fprintf(w, "foreign: %s\n", n)
	}
	if len(targets) == 0 {
		fmt.Fprintf(w, "foreign: %s holds no manifest with a lane on %s: nothing was proved\n", c.dir, runtime.GOOS)
		return 1
	}
	var results []result
	for _, t := range targets {
		fmt.Fprintf(w, "foreign: running %s\n", t.name())
		r, stop := runOne(c, t, w)
		results = append(results, r)
		fmt.Fprintln(w, r.line())
		for _, f := range r.failures() {
			fmt.Fprintln(w, f)
		}
		if stop {
			fmt.Fprintf(w, "foreign: interrupted: %d of %d runs not started\n", len(targets)-len(results), len(targets))
			break
		}
	}
	return summary(w, results, len(targets))
}

// summary prints every run's line and failures again, so the log ends with the verdict, then the
// total; it is the exit code.
func summary(w io.Writer, results []result, planned int) int {
	fmt.Fprintln(w, "\nforeign: summary")
	var passed, failed, specsPassed, specsFailed int
	var took time.Duration
	for _, r := range results {
		fmt.Fprintln(w, r.line())
		for _, f := range r.failures() {
			fmt.Fprintln(w, f)
		}
		if len(r.Problems) > 0 {
			failed++
		} else {
			passed++
		}
		specsPassed, specsFailed, took = specsPassed+r.Passed, specsFailed+r.Failed, took+r.Took
	}
	fmt.Fprintf(w, "foreign: total: %d runs, %d passed, %d failed, %d not run; specs %d passed, %d failed; %.0f s\n",
		planned, passed, failed, planned-len(results), specsPassed, specsFailed, took.Seconds())
	if failed > 0 || len(results) < planned {
		return 1
	}
	return 0
}

// runOne runs the kit on t, its output passed through to w, and judges the run; stop says an
// interrupt ended it (SIGINT or SIGTERM, passed on to the kit, which ends its launcher's
// processes): no further run starts.
func runOne(c config, t target, w io.Writer) (r result, stop bool) {
	out := filepath.Join(c.out, t.Launcher, strings.TrimSuffix(filepath.Base(t.Manifest), filepath.Ext(t.Manifest)))
	r = result{target: t}
	// Nothing of an earlier run in this folder may stand in for this one's verdict.
	if err := os.RemoveAll(out); err != nil {
		r.add("clearing %s: %v", out, err)
		return r, false
	}
	args := append([]string{"run", "--target", t.Manifest, "--repo", t.Repo, "--out", out}, c.extra...)
	cmd := exec.Command(c.cli, args...)
	stderr := &launcher.TailWriter{}
	cmd.Stdout, cmd.Stderr = w, io.MultiWriter(w, stderr)
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		r.add("starting %s: %v", c.cli, err)
		return r, false
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	for waiting := true; waiting; {
		select {
		case s := <-sig:
			stop = true
			cmd.Process.Signal(s) // the kit ends its run and its launcher's processes itself
		case err = <-done:
			waiting = false
		}
	}
	r.Took = time.Since(start)
	code := cmd.ProcessState.ExitCode()
	judge(&r, out, code, err, stderr.String())
	if stop {
		r.add("interrupted: the run was stopped, so it proves nothing")
	}
	return r, stop
}
