package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// benchAgainst times make verify at HEAD against base (make bench-verify): a clean clone of each,
// each warmed once, then runs rounds that alternate between them, then cold runs alike.
func benchAgainst(base string, runs, cold int, work string) {
	dir := work
	if dir == "" {
		d, err := os.MkdirTemp("", "benchverify")
		mustDo(err)
		// A root kit's launcher runs as another user, who must pass through to the clones.
		mustDo(os.Chmod(d, 0o711))
		defer os.RemoveAll(d)
		dir = d
	}
	head := strings.TrimSpace(output("git", "rev-parse", "--short", "HEAD"))
	sides := []*side{{name: "HEAD " + head, rev: "HEAD"}, {name: base, rev: base}}
	for _, s := range sides {
		s.dir = filepath.Join(dir, strings.ReplaceAll(s.rev, "/", "_"))
		mustDo(run("", "git", "clone", "-q", ".", s.dir))
		mustDo(run(s.dir, "git", "checkout", "-q", s.rev))
		fmt.Fprintf(os.Stderr, "benchkit: %s: warming (one make verify, not timed)\n", s.name)
		if _, err := timedVerify(s.dir, nil); err != nil {
			failWith(fmt.Errorf("%s: make verify failed: %w", s.name, err))
		}
	}
	for i := 0; i < runs; i++ {
		for _, s := range sides {
			d, err := timedVerify(s.dir, nil)
			if err != nil {
				failWith(fmt.Errorf("%s: make verify failed: %w", s.name, err))
			}
			s.walls = append(s.walls, d)
			fmt.Fprintf(os.Stderr, "benchkit: round %d, %s: %.2f s\n", i+1, s.name, d)
		}
		for _, s := range sides {
			s.lanes = readLanes(s.dir) // the last round's
		}
	}
	for i := 0; i < cold; i++ {
		for _, s := range sides {
			env, clean := coldEnv(dir)
			d, err := timedVerify(s.dir, env)
			clean()
			if err != nil {
				failWith(fmt.Errorf("%s: cold make verify failed: %w", s.name, err))
			}
			s.colds = append(s.colds, d)
			fmt.Fprintf(os.Stderr, "benchkit: cold %d, %s: %.2f s\n", i+1, s.name, d)
		}
	}
	fmt.Print(table(sides, machine()))
}

// side is one commit's clone and what its runs took.
type side struct {
	name, rev, dir string
	walls, colds   []float64
	lanes          []lane
}

// timedVerify is one make verify in dir with env (nil: this one), timed; a failure says its end.
func timedVerify(dir string, env []string) (float64, error) {
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

func output(name string, args ...string) string {
	b, err := exec.Command(name, args...).Output()
	mustDo(err)
	return string(b)
}

func mustDo(err error) {
	if err != nil {
		failWith(err)
	}
}

func failWith(err error) {
	fmt.Fprintln(os.Stderr, "benchkit:", err)
	os.Exit(1)
}

// jsonFile reads path into v; false when it is missing or not that JSON.
func jsonFile(path string, v any) bool {
	b, err := os.ReadFile(path)
	return err == nil && json.Unmarshal(b, v) == nil
}

// coldEnv is an environment with empty Go build, module and kit caches, in a folder below work
// (the kit's cache is below XDG_CACHE_HOME, or TMPDIR for a root kit, so both are fresh): the modules come from this machine's module cache
// through a file:// GOPROXY, as on a runner with a restored module download but no build cache.
func coldEnv(work string) ([]string, func()) {
	dir, err := os.MkdirTemp(work, "cold-")
	mustDo(err)
	mustDo(os.Chmod(dir, 0o755))
	modcache := strings.TrimSpace(output("go", "env", "GOMODCACHE"))
	env := append(os.Environ(),
		"GOCACHE="+filepath.Join(dir, "gocache"),
		"GOMODCACHE="+filepath.Join(dir, "modcache"),
		"GOPROXY=file://"+filepath.Join(modcache, "cache", "download"),
		"GOFLAGS=-mod=mod",
		"GOSUMDB=off",
		"XDG_CACHE_HOME="+filepath.Join(dir, "usercache"),
		"TMPDIR="+filepath.Join(dir, "tmp"),
	)
	mustDo(os.MkdirAll(filepath.Join(dir, "tmp"), 0o1777))
	mustDo(os.Chmod(filepath.Join(dir, "tmp"), 0o1777))
	return env, func() {
		c := exec.Command("go", "clean", "-modcache")
		c.Env = env
		_ = c.Run()
		os.RemoveAll(dir)
	}
}
