package main

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/classproof/classproof/helpers/binaries"
)

// The workflow's download step (ci/fetch-release, run under dash as on a runner's /bin/sh)
// against an archive in make dist's format, served by a loopback HTTP server: it extracts a
// release whose checksum matches, refuses one whose checksum does not, and says "not available"
// (exit 3, so the caller builds from source) only when the archive is not there.
func TestFetchReleaseAgainstALoopbackServer(t *testing.T) {
	shell := "dash"
	if _, err := exec.LookPath(shell); err != nil {
		shell = "sh"
	}
	const version = "v9.9.9-test"
	name := fmt.Sprintf("classproof-%s-%s-%s", version, runtime.GOOS, runtime.GOARCH)
	stage, dist := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(stage, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stage, "bin", "classproof"), []byte("#!/bin/sh\necho prebuilt\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stage, "VERSION"), []byte(version+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(dist, name+".tar.gz")
	if err := writeTarGz(archive, stage, name, time.Unix(1764547200, 0)); err != nil {
		t.Fatal(err)
	}
	sum, err := binaries.SumFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	checksums := filepath.Join(dist, "checksums.txt")
	writeSums := func(s string) {
		if err := os.WriteFile(checksums, []byte(s+"  "+name+".tar.gz\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(dist)))
	defer srv.Close()
	githubEnv := filepath.Join(t.TempDir(), "github_env")
	fetch := func(base string, flags ...string) (string, string, int) {
		dest := t.TempDir()
		cmd := exec.Command(shell, append(append([]string{"../fetch-release"}, flags...), version, dest, base)...)
		cmd.Env = append(os.Environ(), "GITHUB_ENV="+githubEnv)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return strings.TrimSpace(out.String()), errOut.String(), cmd.ProcessState.ExitCode()
	}

	writeSums(sum)
	root, stderr, code := fetch(srv.URL)
	if code != 0 || filepath.Base(root) != name {
		t.Fatalf("a good release: exit %d, printed %q, stderr %q", code, root, stderr)
	}
	if b, err := exec.Command(filepath.Join(root, "bin", "classproof")).Output(); err != nil || string(b) != "prebuilt\n" {
		t.Errorf("the extracted CLI: %q, %v", b, err)
	}

	writeSums(strings.Repeat("0", 64))
	root, stderr, code = fetch(srv.URL)
	if code != 1 || root != "" || !strings.Contains(stderr, "has sha256 "+sum+", but checksums.txt says "+strings.Repeat("0", 64)+": not extracted") {
		t.Errorf("a wrong checksum: exit %d, printed %q, stderr %q; want exit 1 naming both sums", code, root, stderr)
	}

	writeSums(sum)
	root, stderr, code = fetch(srv.URL + "/no-such-release")
	if code != 3 || root != "" || !strings.Contains(stderr, "has no "+name+".tar.gz") {
		t.Errorf("a missing release: exit %d, printed %q, stderr %q; want exit 3", code, root, stderr)
	}

	// --github-env, as the workflow and the action run it: the CLI for the next steps, or no
	// CLI and exit 0 (build from source), or the checksum's failure.
	envFile := func() string { b, _ := os.ReadFile(githubEnv); return string(b) }
	root, stderr, code = fetch(srv.URL, "--github-env")
	if code != 0 || envFile() != "CLASSPROOF_CLI="+root+"/bin/classproof\n" {
		t.Errorf("--github-env, a good release: exit %d, GITHUB_ENV %q, stderr %q", code, envFile(), stderr)
	}
	if err := os.Remove(githubEnv); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = fetch(srv.URL+"/no-such-release", "--github-env")
	if code != 0 || envFile() != "" || !strings.Contains(stderr, "building from source") {
		t.Errorf("--github-env, a missing release: exit %d, GITHUB_ENV %q, stderr %q; want exit 0 and no CLI", code, envFile(), stderr)
	}
	writeSums(strings.Repeat("0", 64))
	_, stderr, code = fetch(srv.URL, "--github-env")
	if code != 1 || envFile() != "" || !strings.Contains(stderr, "not extracted") {
		t.Errorf("--github-env, a wrong checksum: exit %d, GITHUB_ENV %q, stderr %q; want exit 1", code, envFile(), stderr)
	}
}

// A fork's workflow fetches the fork's releases: the default base comes from
// CLASSPROOF_REPOSITORY, and curl is told to give up on a stalled server. A curl stub on PATH
// records what it was asked and fails, as with no network.
func TestFetchReleaseAsksTheRepositoryItIsGivenWithTimeouts(t *testing.T) {
	bin := t.TempDir()
	asked := filepath.Join(bin, "asked")
	if err := os.WriteFile(filepath.Join(bin, "curl"), []byte("#!/bin/sh\necho \"$@\" >>"+asked+"\nexit 6\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(repository string) (string, int) {
		cmd := exec.Command("sh", "../fetch-release", "v1.2.3", t.TempDir())
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "CLASSPROOF_REPOSITORY="+repository)
		out, _ := cmd.CombinedOutput()
		return string(out), cmd.ProcessState.ExitCode()
	}
	if out, code := run("me/fork"); code != 3 {
		t.Fatalf("no release reachable: exit %d, want 3:\n%s", code, out)
	}
	b, _ := os.ReadFile(asked)
	for _, want := range []string{"https://github.com/me/fork/releases/download/v1.2.3/checksums.txt", "--connect-timeout", "--max-time", "--retry-connrefused"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("curl was asked %q; it lacks %q", b, want)
		}
	}
	for _, bad := range []string{"me", "me/fork/x", "me/fo rk", "/etc"} {
		if out, code := run(bad); code != 2 || !strings.Contains(out, "expected owner/name") {
			t.Errorf("CLASSPROOF_REPOSITORY %q: exit %d:\n%s", bad, code, out)
		}
	}
}
