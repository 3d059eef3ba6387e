package git

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// A repository that keeps its hooks in the tree (husky's core.hooksPath .githooks) has the
// checked-out commit's post-checkout hook run by git worktree add; as root that is the
// repository's code with root's power. The kit's git runs none (issue 53).
func TestGitRunsNoHookOfTheRepository(t *testing.T) {
	repo := t.TempDir()
	marker := filepath.Join(t.TempDir(), "hook-ran")
	hook := "#!/bin/sh\necho ran >" + marker + "\n"
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q")
	if err := os.MkdirAll(filepath.Join(repo, ".githooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, ".githooks", "post-checkout"), []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	run("add", ".")
	run("commit", "-q", "-m", "hooks in the tree")
	run("config", "core.hooksPath", ".githooks")

	wt := filepath.Join(t.TempDir(), "wt")
	if _, err := Run(repo, "worktree", "add", "--detach", wt, "HEAD"); err != nil {
		t.Fatal(err)
	}
	defer func() { _, _ = Run(repo, "worktree", "remove", "--force", wt) }()
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("git worktree add ran the repository's post-checkout hook (%s was written)", marker)
	}
	if _, err := os.Stat(filepath.Join(wt, ".githooks", "post-checkout")); err != nil {
		t.Fatalf("the worktree was not checked out: %v", err)
	}
}
