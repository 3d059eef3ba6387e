// Command benchkit (`make bench-kit`) measures the kit itself; with --against REV (`make
// bench-verify`) it times make verify at HEAD against REV instead, side by side (verify.go): where a `make verify` spends its
// time (the CLI's steps from each lane's run.json, the specs' phases from report.json), and the
// wall time of `make verify` (median of 3, warm caches and cold ones), `make test` and
// `make mutants`, in one table with the machine it ran on, and where the kill matrix's time went
// (per target: each cell's wait for a slot, compile, the variant's build, setup, specs, sweep). A benchmark: it reports, it never
// asserts; nothing in `make test` runs it.
//
// Cold means empty Go build and module caches and an empty kit cache: the modules come from this
// machine's module cache through a file:// GOPROXY (offline, as on a runner with a restored
// module download cache but no build cache).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/classproof/classproof/helpers/commands/mutants"
	"github.com/classproof/classproof/helpers/report"
)

func main() {
	out := flag.String("out", "docs/bench-kit.md", "where to write the table (also printed)")
	runs := flag.Int("runs", 3, "verify runs per cache state")
	skip := flag.String("skip", "", "comma-separated: cold, test, mutants (for a quick look; the committed table has all)")
	against := flag.String("against", "", "instead: make verify at HEAD against this commit, alternating (make bench-verify)")
	cold := flag.Int("cold", 0, "with --against: this many cold runs of each, alternating")
	work := flag.String("work", "", "with --against: folder for the two clones (default: a temporary one, removed after)")
	flag.Parse()
	if *against != "" {
		benchAgainst(*against, *runs, *cold, *work)
		return
	}
	skipped := map[string]bool{}
	for _, s := range strings.Split(*skip, ",") {
		skipped[s] = true
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# The kit's own speed\n\nMeasured %s with `make bench-kit` on %s.\n\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"), machine())

	// Warm: one run to fill the caches, then the measured ones.
	must(timed("make", nil, "verify"))
	var warm []float64
	for i := 0; i < *runs; i++ {
		d, err := timed("make", nil, "verify")
		must(d, err)
		warm = append(warm, d)
	}
	breakdown(&b)
	b.WriteString("\n| what | wall time |\n|---|---|\n")
	fmt.Fprintf(&b, "| `make verify`, warm caches (median of %d) | %s |\n", *runs, med(warm))
	if !skipped["cold"] {
		var cold []float64
		for i := 0; i < *runs; i++ {
			env, clean := coldEnv(os.TempDir())
			d, err := timed("make", env, "verify")
			clean()
			must(d, err)
			cold = append(cold, d)
		}
		fmt.Fprintf(&b, "| `make verify`, cold caches (median of %d) | %s |\n", *runs, med(cold))
	}
	if !skipped["test"] {
		d, err := timed("make", nil, "test")
		must(d, err)
		fmt.Fprintf(&b, "| `make test` (warm) | %.1f s |\n", d)
	}
	if !skipped["mutants"] {
		d, err := timed("make", nil, "mutants")
		must(d, err)
		fmt.Fprintf(&b, "| `make mutants` (warm; every variant, every spec of its lanes) | %.1f s |\n", d)
		matrices(&b)
	}
	fmt.Print(b.String())
	if err := os.WriteFile(*out, []byte(b.String()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "benchkit:", err)
		os.Exit(1)
	}
}

// matrices says where the kill matrix's time went, per matrix make mutants wrote (refmux's, and
// shmux's on Linux): each cell's wait for a slot, compile, the variant's build, setup, specs and
// sweep, summed per target (mutants.TimingMarkdown).
func matrices(b *strings.Builder) {
	for _, f := range []string{"out/mutants/matrix.json", "out/mutants-shmux/matrix.json"} {
		raw, err := os.ReadFile(f)
		if err != nil {
			continue // shmux's runs on Linux only
		}
		var m mutants.Matrix
		if err := json.Unmarshal(raw, &m); err != nil {
			fmt.Fprintf(b, "\n%s: %v\n", f, err)
			continue
		}
		fmt.Fprintf(b, "\n`%s`:\n%s", f, mutants.TimingMarkdown(&m))
	}
}

// breakdown reads the last warm verify's reports: per lane, the CLI's phases and the specs'.
func breakdown(b *strings.Builder) {
	lanes := []string{"out/verify", "out/verify-seed"}
	b.WriteString("Where the last warm `make verify` spent its time, per lane (the lanes run side by side, so\nthey overlap; the spec phases are summed over the lane's specs, which run one at a time):\n\n")
	b.WriteString("| phase | " + strings.Join(lanes, " | ") + " |\n|---|" + strings.Repeat("---|", len(lanes)) + "\n")
	rows := map[string][]string{}
	var order []string
	add := func(name string, i int, v string) {
		if rows[name] == nil {
			rows[name] = make([]string, len(lanes))
			order = append(order, name)
		}
		rows[name][i] = v
	}
	for i, dir := range lanes {
		var meta struct {
			Lane     string             `json:"lane"`
			Phases   map[string]float64 `json:"phases_ms"`
			Duration int64              `json:"duration_ns"`
		}
		raw, err := os.ReadFile(filepath.Join(dir, "run.json"))
		if err != nil || json.Unmarshal(raw, &meta) != nil {
			continue
		}
		add("lane", i, meta.Lane)
		add("run, whole (classproof run)", i, fmt.Sprintf("%.2f s", float64(meta.Duration)/1e9))
		for _, p := range []string{"preflight", "compile", "ginkgo", "sweep"} {
			add("  "+p+map[string]string{"preflight": " (launcher build, or its cached build checked)", "compile": " (suites, harness, ginkgo CLI: built, or found built)", "ginkgo": " (the suites running)", "sweep": " (the pid ledger)"}[p], i, fmt.Sprintf("%.2f s", meta.Phases[p]/1e3))
		}
		r, err := report.Load(filepath.Join(dir, "report.json"), "")
		if err != nil {
			continue
		}
		var total time.Duration
		phases := map[string]time.Duration{}
		ran := 0
		for _, s := range r.Specs {
			if s.Outcome() != report.Passed && s.Outcome() != report.Failed {
				continue
			}
			ran++
			total += s.Duration
			for k, v := range s.Phases {
				phases[k] += v
			}
		}
		add("specs run", i, fmt.Sprint(ran))
		add("    specs, summed", i, fmt.Sprintf("%.2f s", total.Seconds()))
		var names []string
		var named time.Duration
		for k, v := range phases {
			names = append(names, k)
			named += v
		}
		sort.Strings(names)
		for _, k := range names {
			add("      "+k, i, fmt.Sprintf("%.2f s", phases[k].Seconds()))
		}
		add("      the specs' own waits (Eventually, Consistently, reads)", i, fmt.Sprintf("%.2f s", (total-named).Seconds()))
		add("    suite setup and Ginkgo (ginkgo minus specs)", i, fmt.Sprintf("%.2f s", meta.Phases["ginkgo"]/1e3-total.Seconds()))
	}
	for _, name := range order {
		b.WriteString("| " + strings.ReplaceAll(name, "  ", "&nbsp;&nbsp;") + " | " + strings.Join(rows[name], " | ") + " |\n")
	}
}

func timed(name string, env []string, args ...string) (float64, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	fmt.Fprintf(os.Stderr, "benchkit: %s %s\n", name, strings.Join(args, " "))
	t := time.Now()
	err := cmd.Run()
	d := time.Since(t).Seconds()
	fmt.Fprintf(os.Stderr, "benchkit: %s %s: %.1f s\n", name, strings.Join(args, " "), d)
	return d, err
}

func med(v []float64) string {
	var each []string
	for _, x := range v {
		each = append(each, fmt.Sprintf("%.1f", x))
	}
	return fmt.Sprintf("%.1f s (runs: %s)", median(v), strings.Join(each, ", "))
}

func machine() string {
	out, _ := exec.Command("uname", "-srm").Output()
	return fmt.Sprintf("%s, %d CPUs, %s", strings.TrimSpace(string(out)), runtime.NumCPU(), strings.TrimSpace(goEnv("GOVERSION")))
}

func goEnv(name string) string {
	out, _ := exec.Command("go", "env", name).Output()
	return string(out)
}

func must(_ float64, err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchkit:", err)
		os.Exit(1)
	}
}
