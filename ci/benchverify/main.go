// Command benchverify (`make bench-verify BASE=REV`) times `make verify` at HEAD against an
// older commit on this machine, in one run: a clean clone of each, each warmed once, then RUNS
// rounds that alternate between them (so a busy minute of the machine costs both alike). It
// prints the medians and their ratio, the specs each ran, and, per lane, where the last run of
// each spent its time side by side (the CLI's phases from run.json; the specs' phases summed
// from report.json) and the long specs, with when each started and ended in its lane. A
// benchmark: it reports, it never asserts; nothing in make test runs it.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

func main() {
	base := flag.String("base", "c7b0705", "the commit to compare HEAD with")
	runs := flag.Int("runs", 3, "timed make verify runs of each, alternating")
	work := flag.String("work", "", "folder for the two clones (default: a temporary one, removed after)")
	cold := flag.Int("cold", 0, "then this many cold runs of each, alternating: empty Go build, module and kit caches")
	flag.Parse()
	dir := *work
	if dir == "" {
		d, err := os.MkdirTemp("", "benchverify")
		must(err)
		// A root kit's launcher runs as another user, who must pass through to the clones.
		must(os.Chmod(d, 0o711))
		defer os.RemoveAll(d)
		dir = d
	}
	head := strings.TrimSpace(out("git", "rev-parse", "--short", "HEAD"))
	sides := []*side{{name: "HEAD " + head, rev: "HEAD"}, {name: *base, rev: *base}}
	for _, s := range sides {
		s.dir = filepath.Join(dir, strings.ReplaceAll(s.rev, "/", "_"))
		must(run("", "git", "clone", "-q", ".", s.dir))
		must(run(s.dir, "git", "checkout", "-q", s.rev))
		fmt.Fprintf(os.Stderr, "benchverify: %s: warming (one make verify, not timed)\n", s.name)
		if _, err := timed(s.dir); err != nil {
			fail(fmt.Errorf("%s: make verify failed: %w", s.name, err))
		}
	}
	for i := 0; i < *runs; i++ {
		for _, s := range sides {
			d, err := timed(s.dir)
			if err != nil {
				fail(fmt.Errorf("%s: make verify failed: %w", s.name, err))
			}
			s.walls = append(s.walls, d)
			fmt.Fprintf(os.Stderr, "benchverify: round %d, %s: %.2f s\n", i+1, s.name, d)
		}
		for _, s := range sides {
			s.lanes = readLanes(s.dir) // the last round's
		}
	}
	for i := 0; i < *cold; i++ {
		for _, s := range sides {
			env, clean := coldEnv(dir)
			d, err := timedEnv(s.dir, env)
			clean()
			if err != nil {
				fail(fmt.Errorf("%s: cold make verify failed: %w", s.name, err))
			}
			s.colds = append(s.colds, d)
			fmt.Fprintf(os.Stderr, "benchverify: cold %d, %s: %.2f s\n", i+1, s.name, d)
		}
	}
	fmt.Print(table(sides, machine()))
}

// coldEnv is an environment with empty Go build, module and kit caches (the kit's cache is below
// XDG_CACHE_HOME, or TMPDIR for a root kit): the modules come from this machine's module cache
// through a file:// GOPROXY, as on a runner with a restored module download but no build cache.
func coldEnv(work string) ([]string, func()) {
	dir, err := os.MkdirTemp(work, "cold-")
	must(err)
	must(os.Chmod(dir, 0o755))
	modcache := strings.TrimSpace(out("go", "env", "GOMODCACHE"))
	env := append(os.Environ(),
		"GOCACHE="+filepath.Join(dir, "gocache"),
		"GOMODCACHE="+filepath.Join(dir, "modcache"),
		"GOPROXY=file://"+filepath.Join(modcache, "cache", "download"),
		"GOFLAGS=-mod=mod",
		"GOSUMDB=off",
		"XDG_CACHE_HOME="+filepath.Join(dir, "usercache"),
		"TMPDIR="+filepath.Join(dir, "tmp"),
	)
	must(os.MkdirAll(filepath.Join(dir, "tmp"), 0o1777))
	must(os.Chmod(filepath.Join(dir, "tmp"), 0o1777))
	return env, func() {
		c := exec.Command("go", "clean", "-modcache")
		c.Env = env
		_ = c.Run()
		os.RemoveAll(dir)
	}
}

// side is one commit's clone and what its runs took.
type side struct {
	name, rev, dir string
	walls, colds   []float64
	lanes          []lane
}

func timed(dir string) (float64, error) { return timedEnv(dir, nil) }

func timedEnv(dir string, env []string) (float64, error) {
	t := time.Now()
	cmd := exec.Command("make", "verify")
	cmd.Dir, cmd.Env = dir, env
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	err := cmd.Run()
	if err != nil {
		l := log.String()
		err = fmt.Errorf("%w; its last lines:\n%s", err, l[max(0, len(l)-2000):])
	}
	return time.Since(t).Seconds(), err
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[len(s)/2]
}

func run(dir string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, b)
	}
	return nil
}

func out(name string, args ...string) string {
	b, err := exec.Command(name, args...).Output()
	must(err)
	return string(b)
}

func machine() string {
	u, _ := exec.Command("uname", "-srm").Output()
	cpus, _ := exec.Command("nproc").Output()
	gov, _ := exec.Command("go", "env", "GOVERSION").Output()
	return fmt.Sprintf("%s, %s CPUs, %s", strings.TrimSpace(string(u)), strings.TrimSpace(string(cpus)), strings.TrimSpace(string(gov)))
}

func must(err error) {
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchverify:", err)
	os.Exit(1)
}

// jsonFile reads path into v; false when it is missing or not that JSON.
func jsonFile(path string, v any) bool {
	b, err := os.ReadFile(path)
	return err == nil && json.Unmarshal(b, v) == nil
}
