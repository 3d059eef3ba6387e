package identity

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A root kit looks a command up as its launcher's user: a copy in a 0700 folder of root's (pyenv's
// shims, cargo's bin) is passed over for one that user can run, and where there is none the error
// names the user, the folder and the ways out, before anything starts.
func TestLookPathPassesOverWhatTheLaunchersUserCannotRun(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skipf("needs a root kit, whose launcher is another user; runs as uid %d", os.Geteuid())
	}
	id := Identity{Uid: DefaultLauncherUID, Gid: DefaultLauncherUID, kit: 0}
	// Resolved: the error names the folder that stops the user on the resolved path, and TMPDIR
	// may be reached through a symlink.
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(tmp, "home")
	private := filepath.Join(base, "shims")
	open := filepath.Join(t.TempDir(), "bin")
	for _, d := range []string{private, open} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{filepath.Dir(filepath.Dir(open)), filepath.Dir(open), open} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(base, 0o700); err != nil { // root's alone, as /root is
		t.Fatal(err)
	}
	tool := "classproof-test-tool"
	if err := os.WriteFile(filepath.Join(private, tool), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", private+string(os.PathListSeparator)+os.Getenv("PATH"))
	_, err = id.LookPath(tool)
	for _, want := range []string{"uid 65534", filepath.Join(private, tool), "cannot pass through " + base, "CLASSPROOF_LAUNCHER_UID=0"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("LookPath(%s) with it only below root's 0700 %s: %v; expected an error naming %q", tool, base, err, want)
		}
	}

	if err := os.WriteFile(filepath.Join(open, tool), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", private+string(os.PathListSeparator)+open)
	got, err := id.LookPath(tool)
	if err != nil || got != filepath.Join(open, tool) {
		t.Fatalf("LookPath(%s) with a second copy the user can run: %q, %v; expected %s", tool, got, err, filepath.Join(open, tool))
	}
}
