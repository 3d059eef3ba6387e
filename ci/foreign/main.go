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

	"go.yaml.in/yaml/v3"

	"github.com/classproof/classproof/helpers/gate"
	"github.com/classproof/classproof/helpers/lane"
	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/manifest"
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

// target is one manifest of one launcher: one run.
type target struct {
	Launcher string // the launcher's folder name
	Repo     string // its folder: the manifest's {repo}
	Manifest string // the manifest's path
	Lane     string // the lane its background means on this OS; "" where the kit must say (it does not load)
}

// name is how every line names the run: launcher, lane, manifest.
func (t target) name() string {
	l := t.Lane
	if l == "" {
		l = "lane unknown"
	}
	return fmt.Sprintf("%s %s (%s)", t.Launcher, l, filepath.Base(t.Manifest))
}

// result is one run, judged.
type result struct {
	target
	Passed, Failed int
	Took           time.Duration
	Problems       []string // each a failure line; none: the run passed
}

func (r *result) add(format string, a ...any) {
	r.Problems = append(r.Problems, fmt.Sprintf(format, a...))
}

// line is the run's summary line.
func (r result) line() string {
	verdict := "passed"
	if len(r.Problems) > 0 {
		verdict = "FAILED"
	}
	return fmt.Sprintf("foreign: %-44s %s: %d passed, %d failed, %.0f s", r.name(), verdict, r.Passed, r.Failed, r.Took.Seconds())
}

// failures are the run's failure lines, each naming the run.
func (r result) failures() []string {
	var out []string
	for _, p := range r.Problems {
		out = append(out, fmt.Sprintf("  FAIL %s: %s", r.name(), p))
	}
	return out
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

// discover finds every manifest: a *.yaml or *.yml file in a launcher's folder (one level below
// dir) that has a class_env key, as every manifest must (launcher.Validate). Other files are not
// manifests and are passed over; a YAML file that does not parse is run, so the kit says what is
// wrong with it rather than it being passed over. A manifest whose background on this OS is
// unsupported has no lane here and is noted.
func discover(dir string) (targets []target, notes []string, err error) {
	launchers, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, l := range launchers {
		repo := filepath.Join(dir, l.Name())
		if fi, err := os.Stat(repo); err != nil || !fi.IsDir() || strings.HasPrefix(l.Name(), ".") {
			continue // a file, or a hidden folder; a link to a launcher's folder is followed
		}
		files, err := os.ReadDir(repo)
		if err != nil {
			return nil, nil, err
		}
		for _, f := range files {
			ext := filepath.Ext(f.Name())
			if f.IsDir() || (ext != ".yaml" && ext != ".yml") {
				continue
			}
			path := filepath.Join(repo, f.Name())
			t, note, err := manifestAt(path)
			if err != nil {
				return nil, nil, err
			}
			if note != "" {
				notes = append(notes, note)
				continue
			}
			t.Launcher, t.Repo = l.Name(), repo
			targets = append(targets, t)
		}
	}
	return targets, notes, nil
}

// manifestAt reads one YAML file: a target, or a note saying why it is not run.
func manifestAt(path string) (target, string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return target{}, "", err
	}
	var keys map[string]any
	if yaml.Unmarshal(b, &keys) == nil {
		if _, ok := keys["class_env"]; !ok {
			return target{}, fmt.Sprintf("%s: not a manifest (no class_env), passed over", path), nil
		}
	}
	t := target{Manifest: path}
	m, err := manifest.Parse(path, b)
	if err != nil {
		return t, "", nil // the kit's run refuses it, in its own words
	}
	if m.Background[runtime.GOOS] == manifest.Unsupported {
		return target{}, fmt.Sprintf("%s: background.%s is %s: no lane here, not run", path, runtime.GOOS, manifest.Unsupported), nil
	}
	if meaning, err := m.Meaning(runtime.GOOS); err == nil {
		if p, err := lane.Current(meaning); err == nil {
			t.Lane = p.Label
		}
	}
	return t, "", nil
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

// judge reads the run in out as the release gate reads a lane (helpers/gate: every spec that did
// not pass, a failed setup, a run that stopped, leaked or ran nothing, a report changed after
// the run), with the kit's exit code: 2 is a run that could not even start, named with the
// kit's own message; an exit the reports do not explain fails too.
func judge(r *result, out string, code int, err error, stderr string) {
	if code == 2 {
		r.add("classproof could not run it (exit 2): %s", kitMessage(stderr))
		return
	}
	if _, serr := os.Stat(out); os.IsNotExist(serr) {
		r.add("classproof run (%s) left no reports: %s does not exist", exit(err), out)
		return
	}
	v, gerr := gate.EvaluateWith(out, nil, nil, gate.Options{})
	if gerr != nil {
		r.add("%v", gerr)
	} else {
		for _, l := range v.Lanes {
			if l.Meta.Lane != "" {
				r.Lane = l.Meta.Lane
			}
			r.Passed, r.Failed = r.Passed+l.Count.Passed, r.Failed+l.Count.Failed
			r.Problems = append(r.Problems, l.Problems...)
		}
		if len(v.Lanes) == 0 {
			r.Problems = append(r.Problems, v.Reasons...) // no report at all
		}
	}
	if code != 0 && len(r.Problems) == 0 {
		r.add("classproof run ended with %s, yet its reports show no failure: %s", exit(err), kitMessage(stderr))
	}
}

// exit says how the kit's process ended.
func exit(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// kitMessage is what the kit said when it gave up: its error (`classproof run: ...`, printed
// once by cmd/classproof's fail, with any lines under it) on one line, else the last line it
// printed on stderr.
func kitMessage(stderr string) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	from := len(lines) - 1
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "classproof run: ") {
			from = i
			break
		}
	}
	msg := ""
	for _, l := range lines[from:] {
		switch l = strings.TrimSpace(l); {
		case l == "":
		case msg == "" || strings.HasSuffix(msg, ":"):
			msg = strings.TrimSpace(msg + " " + l)
		default:
			msg += "; " + l
		}
	}
	if msg == "" {
		return "(it printed nothing on stderr)"
	}
	return msg
}
