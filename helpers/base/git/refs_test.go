package git

import (
	"os/exec"
	"strings"
	"testing"
)

// A branch and a tag of one name: git resolves the tag with a warning on stderr, which once
// became part of the SHA. The SHA is stdout alone; a name whose branch and tag differ is refused
// naming both; one whose branch and tag agree is that commit.
func TestARefThatIsABranchAndATag(t *testing.T) {
	repo := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("init", "-q", "-b", "main")
	run("commit", "-q", "--allow-empty", "-m", "one")
	one := run("rev-parse", "HEAD")
	run("tag", "same")
	run("branch", "same")
	run("tag", "fix")
	run("commit", "-q", "--allow-empty", "-m", "two")
	run("branch", "fix")
	if sha, err := Resolve(repo, "same"); err != nil || sha != one {
		t.Errorf("a branch and a tag at one commit: %q, %v; want %s", sha, err, one)
	}
	_, err := Resolve(repo, "fix")
	if err == nil || !strings.Contains(err.Error(), "branch refs/heads/fix is") || !strings.Contains(err.Error(), "tag refs/tags/fix is") {
		t.Errorf("a branch and a tag at two commits: %v", err)
	}
	if sha, err := Resolve(repo, "refs/tags/fix"); err != nil || sha != one {
		t.Errorf("refs/tags/fix: %q, %v; want %s", sha, err, one)
	}
}
