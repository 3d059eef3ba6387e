// Command mutantskit is `make mutants-kit`: mutation testing of the kit's own verdict code, the
// converse of the kill matrix. The kill matrix proves every known-broken launcher is caught; this
// proves a bug in the code that decides (the oracle, the outcome classifier, the gate, the
// red/green judge, the lane filter, the declared conventions, proc's alive/starved/kill
// decisions) is caught by the kit's fast unit tests.
//
// It runs gremlins (github.com/go-gremlins/gremlins, pinned as a tool in go.mod) on each package
// in turn, against its fast unit tests (the end-to-end ones, built with -tags e2e, are left out), and
// mutates only the verdict files named below. A mutant that lives must be listed, with why it is
// equivalent, in ci/kit-survivors.txt; any other survivor fails the run. Its last line is
//
//	kit mutation score: K killed of M (P %)
//
// where M is killed + lived; mutants no test covers and mutants that timed out are on a line of
// their own. It fails below 90 % or under 100 mutants.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"
)

// unit is one package and the files in it whose mutants count.
type unit struct {
	pkg    string
	mutate []string
	what   string
}

var units = []unit{
	{"helpers/oracle", []string{"class.go", "parse.go"}, "the oracle"},
	{"helpers/report", []string{"report.go", "outcome.go", "summary.go", "meta.go", "ownfailure.go"}, "the outcome classifier, the summary, what proves a promise broken"},
	{"helpers/gate", []string{"gate.go", "judge.go", "required.go", "text.go", "junit.go"}, "the release gate's rules"},
	{"helpers/commands/redgreen", []string{"judge.go"}, "red/green's judge"},
	{"helpers/lane", []string{"lane.go"}, "the lane's label filter"},
	{"helpers/manifest", []string{"declares.go", "features.go"}, "the declared conventions"},
	{"helpers/base/proc", []string{"tie.go"}, "whom the kit may kill"},
	{"helpers/base/proctable", []string{"tree.go", "starve.go"}, "alive, a process's chain, starved"},
}

const (
	minMutants = 100
	minScore   = 90.0
)

// result is the part of gremlins' -o file this reads.
type result struct {
	Files []struct {
		Name      string `json:"file_name"`
		Mutations []struct {
			Type   string `json:"type"`
			Status string `json:"status"`
			Line   int    `json:"line"`
			Column int    `json:"column"`
		} `json:"mutations"`
	} `json:"files"`
}

type mutant struct{ key, status string }

func main() {
	out := flag.String("out", "out/mutants-kit", "folder for each package's gremlins log and results")
	survivorsFile := flag.String("survivors", "ci/kit-survivors.txt", "the mutants known to live, each with why it is equivalent")
	budget := flag.Duration("timeout", 15*time.Minute, "the whole run's limit")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *budget)
	defer cancel()
	known, err := readSurvivors(*survivorsFile)
	if err != nil {
		fail("%v", err)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fail("%v", err)
	}
	var all []mutant
	for _, u := range units {
		ms, err := run(ctx, u, *out)
		if err != nil {
			fail("%s: %v", u.pkg, err)
		}
		all = append(all, ms...)
	}
	os.Exit(verdict(all, known, *survivorsFile))
}

// run mutates one package and returns its mutants, keyed pkg/file:line:col TYPE.
func run(ctx context.Context, u unit, out string) ([]mutant, error) {
	exclude, err := others(u)
	if err != nil {
		return nil, err
	}
	name := strings.ReplaceAll(u.pkg, "/", "-")
	res, logPath := filepath.Join(out, name+".json"), filepath.Join(out, name+".log")
	_ = os.Remove(res)
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	args := []string{"tool", "gremlins", "unleash", "--invert-logical",
		"--timeout-coefficient", "30", "-o", res}
	if exclude != "" {
		args = append(args, "-E", exclude)
	}
	cmd := exec.CommandContext(ctx, "go", append(args, "./"+u.pkg)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	start := time.Now()
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("stopped (%v) after %v; no score: its log is %s", context.Cause(ctx), time.Since(start).Round(time.Second), logPath)
		}
		return nil, fmt.Errorf("gremlins failed (%v); its log is %s", err, logPath)
	}
	ms, err := read(res, u.pkg)
	if err != nil {
		return nil, err
	}
	c := tally(ms)
	fmt.Printf("%-17s %3d killed, %2d lived, %2d not covered, %d timed out  (%s; %v)\n",
		u.pkg, c["KILLED"], c["LIVED"], c["NOT COVERED"], c["TIMED OUT"], u.what, time.Since(start).Round(time.Second))
	return ms, nil
}

// others is a gremlins exclude pattern for every non-test Go file of the package not in mutate,
// and every file in a folder below it.
func others(u unit) (string, error) {
	files, err := filepath.Glob(filepath.Join(u.pkg, "*.go"))
	if err != nil {
		return "", err
	}
	keep := map[string]bool{}
	for _, f := range u.mutate {
		if _, err := os.Stat(filepath.Join(u.pkg, f)); err != nil {
			return "", fmt.Errorf("a verdict file to mutate is gone (%v): update ci/mutantskit", err)
		}
		keep[f] = true
	}
	var ex []string
	for _, f := range files {
		if b := filepath.Base(f); !keep[b] && !strings.HasSuffix(b, "_test.go") {
			ex = append(ex, regexp.QuoteMeta(b))
		}
	}
	// gremlins walks the folders below the package too (helpers/report/actions below report):
	// those are other packages, never this unit's.
	ex = append(ex, ".*/.*")
	return "^(" + strings.Join(ex, "|") + ")$", nil
}

func read(path, pkg string) ([]mutant, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("gremlins wrote no results: %w", err)
	}
	var r result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var ms []mutant
	for _, f := range r.Files {
		for _, m := range f.Mutations {
			key := fmt.Sprintf("%s/%s:%d:%d %s", pkg, filepath.Base(f.Name), m.Line, m.Column, m.Type)
			ms = append(ms, mutant{key, m.Status})
		}
	}
	return ms, nil
}

func tally(ms []mutant) map[string]int {
	c := map[string]int{}
	for _, m := range ms {
		c[m.status]++
	}
	return c
}

// readSurvivors reads "KEY: why it is equivalent" lines; # starts a comment.
func readSurvivors(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	known := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, why, ok := strings.Cut(line, ": ")
		if !ok || strings.TrimSpace(why) == "" {
			return nil, fmt.Errorf("%s:%d: %q: expected \"pkg/file.go:LINE:COL TYPE: why it is equivalent\"", path, n, line)
		}
		known[key] = why
	}
	return known, sc.Err()
}

// verdict prints the survivors and the score, and says whether the run passes.
func verdict(all []mutant, known map[string]string, survivorsFile string) int {
	c := tally(all)
	rc := 0
	var unexplained, explained []string
	lived := map[string]bool{}
	for _, m := range all {
		if m.status != "LIVED" {
			continue
		}
		lived[m.key] = true
		if why, ok := known[m.key]; ok {
			explained = append(explained, m.key+": "+why)
		} else {
			unexplained = append(unexplained, m.key)
		}
	}
	sort.Strings(explained)
	sort.Strings(unexplained)
	for _, e := range explained {
		fmt.Println("lived, equivalent:", e)
	}
	for _, u := range unexplained {
		fmt.Printf("LIVED, NOT EXPLAINED: %s: kill it with a test of a real behaviour, or say in %s why it is equivalent\n", u, survivorsFile)
		rc = 1
	}
	var stale []string
	for k := range known {
		if !lived[k] {
			stale = append(stale, k)
		}
	}
	sort.Strings(stale)
	for _, s := range stale {
		fmt.Printf("note: %s is listed in %s but did not live this run (killed, or the code moved): remove or update it\n", s, survivorsFile)
	}
	k, m := c["KILLED"], c["KILLED"]+c["LIVED"]
	fmt.Printf("not counted: %d not covered by a unit test, %d timed out, %d not viable\n", c["NOT COVERED"], c["TIMED OUT"], c["NOT VIABLE"])
	if m < minMutants {
		fmt.Printf("FAILED: %d mutants were run; at least %d are needed for a score that means something\n", m, minMutants)
		rc = 1
	}
	p := 0.0
	if m > 0 {
		p = 100 * float64(k) / float64(m)
	}
	if p < minScore {
		fmt.Printf("FAILED: the score is under %.0f %%\n", minScore)
		rc = 1
	}
	fmt.Printf("kit mutation score: %d killed of %d (%.1f %%)\n", k, m, p)
	return rc
}

func fail(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "mutants-kit: "+format+"\n", a...)
	os.Exit(1)
}
