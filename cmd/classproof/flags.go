package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/classproof/classproof/fixtures/targets"
	"github.com/classproof/classproof/helpers/base/git"
	"github.com/classproof/classproof/helpers/manifest"
	"github.com/classproof/classproof/helpers/runner"
)

// parse parses a command's flags. --help prints the command's help (exit 0); an unknown flag is
// one line naming the closest valid one (exit 2). ok is false when the command must stop there.
func parse(fs *flag.FlagSet, args []string) (code int, ok bool) {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	switch {
	case err == nil:
		return exitPassed, true
	case errors.Is(err, flag.ErrHelp):
		fmt.Print(commandHelp(fs))
		return exitPassed, false
	}
	msg := err.Error()
	if bad, found := strings.CutPrefix(msg, "flag provided but not defined: "); found {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		msg = fmt.Sprintf("unknown flag %s; did you mean --%s?", bad, closest(strings.TrimLeft(bad, "-"), names))
	}
	fmt.Fprintf(os.Stderr, "classproof %s: %s ('classproof help %s' lists every flag)\n", fs.Name(), msg, fs.Name())
	return exitUsage, false
}

func commandHelp(fs *flag.FlagSet) string {
	c, _ := lookup(fs.Name())
	var b strings.Builder
	fmt.Fprintf(&b, "usage: classproof %s [flags]\n\n%s.\n\nflags:\n", c.name, c.summary)
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fmt.Fprintf(&b, "\nexample:\n  %s\n\nexit codes: %s\n", c.example, c.exits)
	return b.String()
}

// closest is the option nearest to s by edit distance (ties: the first in order).
func closest(s string, options []string) string {
	best, bestD := "", -1
	for _, o := range options {
		if d := distance(s, o); bestD < 0 || d < bestD {
			best, bestD = o, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// repoDir is --repo made absolute, or by default the root of the git repository the command was
// started in (else that folder): a launcher's team runs the kit from its own repository.
func repoDir(flag string) (string, error) {
	if flag != "" {
		return filepath.Abs(flag)
	}
	if root, err := git.Root("."); err == nil {
		return root, nil
	}
	return os.Getwd()
}

// resolveTarget is the one target of a command's flags (--target, --lane, --var, --repo).
func resolveTarget(f runner.RunFlags) (*manifest.Resolved, error) {
	ref, err := f.Target()
	if err != nil {
		return nil, err
	}
	repo, err := repoFor(f.Repo, ref, os.Stderr)
	if err != nil {
		return nil, err
	}
	return targets.Resolve(ref, f.Lane, f.Vars, repo)
}

// repoFor is {repo} for a manifest: --repo when given, else the git repository that holds the
// manifest file (an embedded manifest's: the one the command started in, as repoDir). A
// manifest below that repository's root (a launcher in a subfolder of a larger repository) is
// said on note, with the root it gets, so that nobody builds the outer tree unawares.
func repoFor(flag, ref string, note io.Writer) (string, error) {
	if flag != "" || ref == "" || strings.HasPrefix(ref, manifest.EmbeddedPrefix) {
		return repoDir(flag)
	}
	dir, err := filepath.Abs(filepath.Dir(ref))
	if err != nil {
		return "", err
	}
	root, err := git.Root(dir)
	if err != nil {
		return dir, nil // in no repository: the manifest's own folder
	}
	if rel, err := filepath.Rel(root, dir); err == nil && rel != "." {
		fmt.Fprintf(note, "classproof: {repo} is %s, the root of the git repository that holds %s (in its subfolder %s); give --repo to name another\n", root, ref, rel)
	}
	return root, nil
}

// needsGo wraps a command that builds with Go: with no go on PATH it says so plainly and exits 2
// (a release archive runs run, redgreen, gate and doctor without one).
func needsGo(cmd, why string, run func(context.Context, []string) int) func(context.Context, []string) int {
	return func(ctx context.Context, args []string) int {
		if _, err := exec.LookPath("go"); err != nil {
			fmt.Fprintf(os.Stderr, "classproof %s needs Go (%s), and there is no go on PATH. run, redgreen, gate and doctor work without it from the release archive.\n", cmd, why)
			return exitUsage
		}
		return run(ctx, args)
	}
}
