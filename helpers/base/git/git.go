// Package git runs git for the kit: on a launcher's repository (redgreen's sides, bisect's
// steps, the CLI's {repo}) and on the kit's own checkout, never running the repository's code.
package git

import (
	"fmt"
	"os/exec"
	"strings"
)

// Run runs a git command in repo and returns its standard output alone: a warning on stderr
// (git's "refname is ambiguous") is no part of a SHA. Its stderr goes into the error.
//
// It runs nothing of the repository's: the kit may be root, and a repository that keeps its hooks
// in the tree (core.hooksPath .githooks, as husky sets it) would have the checked-out commit's
// post-checkout hook run as root, outside every sandbox and cgroup. So hooks point nowhere, and
// no fsmonitor, auto gc or maintenance starts a process that outlives the command.
func Run(repo string, args ...string) (string, error) {
	cmd := exec.Command("git", append(append([]string{"-C", repo}, noRepoCode...), args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// Resolve is the commit ref names. A name that is both a branch and a tag pointing at different
// commits is refused, naming both: git would pick the tag with only a warning, and a proof must
// not build a commit other than the one its user meant.
func Resolve(repo, ref string) (string, error) {
	if !strings.HasPrefix(ref, "refs/") {
		branch, berr := Run(repo, "rev-parse", "--verify", "--quiet", "refs/heads/"+ref+"^{commit}")
		tag, terr := Run(repo, "rev-parse", "--verify", "--quiet", "refs/tags/"+ref+"^{commit}")
		if berr == nil && terr == nil && branch != "" && tag != "" && branch != tag {
			return "", fmt.Errorf("ambiguous: branch refs/heads/%s is %s and tag refs/tags/%s is %s; give refs/heads/%s, refs/tags/%s or a commit",
				ref, Short(branch), ref, Short(tag), ref, ref)
		}
	}
	return Run(repo, "rev-parse", "--verify", "--end-of-options", ref+"^{commit}")
}

// Root is the root of the git repository dir is in; an error outside any, or where git refuses
// the repository (safe.directory: one owned by another user), with git's words.
func Root(dir string) (string, error) { return Run(dir, "rev-parse", "--show-toplevel") }

// Short is a commit's name in receipts and messages: its first 12 hex digits.
func Short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// noRepoCode is what every git call gives, before its command (git-config(1): core.hooksPath,
// core.fsmonitor, gc.auto, maintenance.auto).
var noRepoCode = []string{"-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "gc.auto=0", "-c", "maintenance.auto=false"}
