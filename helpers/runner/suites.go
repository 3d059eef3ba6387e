package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/classproof/classproof/helpers/base/cgroup"
	"github.com/classproof/classproof/helpers/base/limits"
	"github.com/classproof/classproof/helpers/launcher"
)

// runWatched is run with what the run's own launcher uid holds watched against its bounds
// throughout (limits.Limits.Watch): a bound passed is a reason the run fails.
func (g ginkgoRun) runWatched(ctx context.Context, res *Result) (err error) {
	stop := g.pl.limits.Watch(g.pl.id, limits.Interval)
	res.GinkgoErr, res.Interrupted, err = g.run(ctx)
	peak, over := stop()
	res.Peak, res.Problems = peak, append(res.Problems, over...)
	return err
}

// ginkgoRun is the suites of one run, started by ginkgo and supervised to their end.
type ginkgoRun struct {
	o             Options
	pl            plan
	pr            prepared
	ledger, token string
	runCg         *cgroup.Cgroup
	last          *launcher.TailWriter
}

// run runs the suites: one ginkgo command over all of them; or, with --procs above 1 and more
// than one suite (and not a dry run or --fail-fast, which judge the suites in order), one
// command per suite at once, each on --procs processes, so that one suite's long waits (the
// whole-life watch) overlap the others' specs; their reports are then merged, in the suites'
// order, into the run's report.json and junit.xml. The specs, their filter and what each checks
// are the same either way.
func (g ginkgoRun) run(ctx context.Context) (ginkgoErr error, interrupted bool, err error) {
	suites := g.pr.compiled.Suites
	if g.o.Procs <= 1 || len(suites) < 2 || g.o.DryRun || g.o.FailFast {
		return supervise(ctx, g.command(g.pl.out, suites), g.o.Log, hardStop(g.pr.deadline), g.runCg)
	}
	dirs := make([]string, len(suites))
	errs := make([]error, len(suites))
	stops := make([]bool, len(suites))
	var wg sync.WaitGroup
	for i, s := range suites {
		dirs[i] = filepath.Join(g.pl.out, "suites", fmt.Sprintf("%d-%s", i+1, strings.TrimSuffix(filepath.Base(s), ".test")))
		if err := os.MkdirAll(dirs[i], 0o755); err != nil {
			return nil, false, err
		}
		cmd := g.command(dirs[i], []string{s})
		wg.Add(1)
		go func() {
			defer wg.Done()
			var e error
			errs[i], stops[i], e = supervise(ctx, cmd, g.o.Log, hardStop(g.pr.deadline), g.runCg)
			if e != nil {
				errs[i] = e
			}
		}()
	}
	wg.Wait()
	for i := range suites {
		if errs[i] != nil {
			ginkgoErr = errors.Join(ginkgoErr, fmt.Errorf("%s: %w", filepath.Base(suites[i]), errs[i]))
		}
		interrupted = interrupted || stops[i]
	}
	if err := mergeReports(dirs, g.pl.out); err != nil {
		// No report.json: the run says it stopped (stoppedBecause), as one whose ginkgo wrote none.
		fmt.Fprintf(g.o.Log, "classproof: the suites' reports were not merged: %v\n", err)
	}
	return ginkgoErr, interrupted, nil
}

// command is the ginkgo command over suites, its reports in outDir. A log that is a file is
// handed to ginkgo as it is, never through a pipe of ours: a pipe whose reader died with a
// killed classproof would kill the test processes with SIGPIPE on their next line, before their
// cleanups could kill the launchers (TestAKilledRunDoesNotGoOnAlone). Any other log gets what
// ginkgo prints through one lock (the suites may run at once), and g.last its end.
func (g ginkgoRun) command(outDir string, suites []string) *exec.Cmd {
	cmd := ginkgoCommand(g.o, g.pl, g.pr, g.ledger, g.token, g.runCg, outDir, suites)
	if _, isFile := g.o.Log.(*os.File); !isFile {
		cmd.Stdout = locked(io.MultiWriter(g.o.Log, g.last))
		cmd.Stderr = cmd.Stdout
	}
	return cmd
}

var logMu sync.Mutex

type lockedWriter struct{ w io.Writer }

func locked(w io.Writer) io.Writer { return lockedWriter{w} }

func (l lockedWriter) Write(p []byte) (int, error) {
	logMu.Lock()
	defer logMu.Unlock()
	return l.w.Write(p)
}

// mergeReports joins each suite's report.json and junit.xml, in dirs' order, into out's. Every
// suite must have written both: a merged report without a suite would be a lane without its
// specs, so then nothing is written and the folders stay for a look.
func mergeReports(dirs []string, out string) error {
	var junits []string
	var all []json.RawMessage
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "report.json"))
		if err != nil {
			return err
		}
		var reports []json.RawMessage
		if err := json.Unmarshal(b, &reports); err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(d, "report.json"), err)
		}
		all = append(all, reports...)
		junits = append(junits, filepath.Join(d, "junit.xml"))
		if _, err := os.Stat(junits[len(junits)-1]); err != nil {
			return err
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(all); err != nil {
		return err
	}
	x, err := mergeJUnit(junits)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "junit.xml"), x, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "report.json"), b.Bytes(), 0o644); err != nil {
		return err
	}
	for _, d := range dirs {
		os.RemoveAll(d)
	}
	return os.Remove(filepath.Join(out, "suites"))
}

// junitSuites is the root of a junit.xml as Ginkgo writes it: its counts, and its testsuite
// elements kept as written.
type junitSuites struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Disabled int      `xml:"disabled,attr"`
	Errors   int      `xml:"errors,attr"`
	Failures int      `xml:"failures,attr"`
	Time     float64  `xml:"time,attr"`
	Inner    []byte   `xml:",innerxml"`
}

// mergeJUnit joins junit.xml files into one: the counts summed, every testsuite element as each
// file has it, in order. (Ginkgo's own merge links golang.org/x/tools into the CLI: seconds of
// every cold build, for this.)
func mergeJUnit(paths []string) ([]byte, error) {
	var all junitSuites
	var inner bytes.Buffer
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var s junitSuites
		if err := xml.Unmarshal(b, &s); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		all.Tests, all.Disabled, all.Errors, all.Failures, all.Time = all.Tests+s.Tests, all.Disabled+s.Disabled, all.Errors+s.Errors, all.Failures+s.Failures, all.Time+s.Time
		inner.Write(bytes.TrimSpace(s.Inner))
		inner.WriteString("\n")
	}
	return []byte(fmt.Sprintf("%s<testsuites tests=\"%d\" disabled=\"%d\" errors=\"%d\" failures=\"%d\" time=\"%g\">\n%s</testsuites>\n",
		xml.Header, all.Tests, all.Disabled, all.Errors, all.Failures, all.Time, inner.Bytes())), nil
}
