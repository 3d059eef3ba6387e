package launcher

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/classproof/classproof/helpers/base/identity"
	"github.com/classproof/classproof/helpers/base/proc"
	"github.com/classproof/classproof/helpers/base/proctable"
	"github.com/classproof/classproof/helpers/manifest"
)

// good is the smallest manifest a driver test starts from (helpers/manifest's tests keep their
// own: test files do not cross packages).
const good = `
name: t
class_env: T_CLASS
background: {darwin: darwinbg, linux: idle}
daemon: {run: ["{bin}/t", daemon, "{socket}"]}
session:
  direct: ["{bin}/t", run, "{profile}"]
  hosted: ["{bin}/t", run, --hosted, "{profile}"]
`

func TestMissingBinaryIsOneClearError(t *testing.T) {
	m, err := manifest.Parse("m.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	harness := filepath.Join(t.TempDir(), "harness")
	os.WriteFile(harness, nil, 0o755)
	_, err = Open(m, manifest.Paths{Kit: "/kit", Bin: "/nonexistent/bin"}, harness)
	if err == nil || !strings.Contains(err.Error(), `daemon.run[0], session.direct[0], session.hosted[0] "/nonexistent/bin/t": stat /nonexistent/bin/t: no such file or directory`) || strings.Count(err.Error(), "/nonexistent/bin/t\"") != 1 {
		t.Fatalf("got %v", err)
	}
}

// A client command runs in a process group of its own: what it forks and leaves running is tracked
// for the spec's cleanup, and a timeout kills the whole group instead of waiting on it.
func TestClientCommandsAreBoundedWithTheirGroup(t *testing.T) {
	m, err := manifest.Parse("m.yaml", []byte(`
name: t
class_env: T_CLASS
background: {darwin: darwinbg, linux: idle}
daemon: {run: [sleep, "600"]}
session: {direct: [true, "{profile}"]}
config:
  set: [sh, -c, 'sleep 30 & echo started $0', "{key}={value}"]
  get: [sh, -c, 'exec sleep 30', "{key}"]
  unset: [true, "{key}"]
  file: "{home}/c.json"
  key: k
  file_key: k
`))
	if err != nil {
		t.Fatal(err)
	}
	d, err := New(m, manifest.Paths{Kit: t.TempDir(), Bin: reachableBin(t)}, "")
	if err != nil {
		t.Fatal(err)
	}
	set := proc.NewSet()
	l, err := d.Launch(context.Background(), set, LaunchOptions{}, io.Discard, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	defer set.KillAll(5 * time.Second)

	out, err := l.ConfigSet("k", "v")
	if err != nil || !strings.Contains(out, "started") {
		t.Fatalf("set: %q %v", out, err)
	}
	var left []int
	for _, e := range set.Entries() {
		if strings.Contains(e.Role, "config.set (left running)") {
			left = append(left, e.Pid)
		}
	}
	if len(left) != 1 || !alive(left[0]) {
		t.Fatalf("the sleep the command forked is not tracked alive: %v in %+v", left, set.Entries())
	}

	_, err = l.ConfigGet("k")
	if err == nil || !strings.Contains(err.Error(), "no answer within 2s (killed, with its process group)") {
		t.Fatalf("get that never answers: %v", err)
	}
	if err := set.KillAll(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	if alive(left[0]) {
		t.Errorf("the forked sleep pid %d outlived the cleanup", left[0])
	}
}

// build.env values are placeholders like any other: the build sees {bin} expanded.
func TestBuildEnvIsExpanded(t *testing.T) {
	m, err := manifest.Parse("m.yaml", []byte(good+`build:
  run: [sh, -c, 'printf "%s" "$OUT" >"$1/out.txt" && printf "#!/bin/sh\n" >"$1/t" && chmod +x "$1/t"', sh, "{bin}"]
  env: {OUT: "{bin}/out"}
`))
	if err != nil {
		t.Fatal(err)
	}
	bin := reachableBin(t)
	d, err := New(m, manifest.Paths{Kit: t.TempDir(), Bin: bin}, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Build(context.Background(), io.Discard); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(bin, "out.txt"))
	if want := bin + "/out"; string(got) != want {
		t.Errorf("the build saw OUT=%q, want %q", got, want)
	}
}

// A launcher runs as our user: on a CI runner it must not get the files GitHub Actions reads back
// after the step (a forged "classproof gate: PASS" in the job summary, a CLASSPROOF_CLI= line in
// GITHUB_ENV) nor the runner's tokens. The rest of the environment is its own.
func TestALauncherGetsNoRunnerFileOrToken(t *testing.T) {
	for _, k := range []string{"GITHUB_STEP_SUMMARY", "GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_STATE",
		"ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN"} {
		t.Setenv(k, "/home/runner/work/_temp/x")
	}
	t.Setenv("GITHUB_WORKSPACE", "/home/runner/work/r")
	m, err := manifest.Parse("m.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	env := strings.Join((&Driver{Manifest: m}).env("", map[string]string{"X": "y"}), "\n")
	for _, k := range []string{"GITHUB_STEP_SUMMARY=", "GITHUB_ENV=", "GITHUB_OUTPUT=", "GITHUB_PATH=", "GITHUB_STATE=", "ACTIONS_"} {
		if strings.Contains(env, k) {
			t.Errorf("the launcher's environment holds %s", k)
		}
	}
	if !strings.Contains(env, "GITHUB_WORKSPACE=/home/runner/work/r") || !strings.Contains(env, "X=y") {
		t.Errorf("the launcher lost an environment variable of its own:\n%s", env)
	}
}

// A build that prints without end costs the kit a bounded tail: what a failed build's error
// carries is its last TailBytes, saying how much came before.
func TestAFloodingBuildKeepsATail(t *testing.T) {
	m, err := manifest.Parse("m.yaml", []byte(good+`build:
  run: [sh, -c, 'head -c 4000000 /dev/zero | tr "\0" x; echo; echo the last line; exit 1']
`))
	if err != nil {
		t.Fatal(err)
	}
	d, err := New(m, manifest.Paths{Kit: t.TempDir(), Bin: reachableBin(t)}, "")
	if err != nil {
		t.Fatal(err)
	}
	err = d.Build(context.Background(), io.Discard)
	var be *BuildError
	if !errors.As(err, &be) {
		t.Fatalf("want a build error, got %v", err)
	}
	if len(be.Output) > TailBytes+200 || !strings.Contains(be.Output, "bytes cut; the last") || !strings.HasSuffix(be.Output, "the last line\n") {
		t.Errorf("kept %d bytes of a 4 MB build output (want at most %d, the tail, and what was cut): %.120q...", len(be.Output), TailBytes+200, be.Output)
	}
}

// A launcher process that prints without end (a daemon in a passing spec, a build) reaches a log
// only up to LogBytes, then one line saying so: the log and every report that carries it stay
// small. The writer it writes to never sees an error.
func TestALogOfALauncherIsCapped(t *testing.T) {
	var log bytes.Buffer
	w := Capped(&log, 10, "refmux daemon")
	for i := 0; i < 1000; i++ {
		if n, err := w.Write([]byte("0123456789")); n != 10 || err != nil {
			t.Fatalf("write %d: %d, %v", i, n, err)
		}
	}
	if want := "0123456789\n[classproof: refmux daemon printed more than 10 bytes; the rest is not shown here"; !strings.HasPrefix(log.String(), want) || log.Len() > 200 {
		t.Errorf("the log holds %d bytes: %q", log.Len(), log.String())
	}
}

// reachableBin is a {bin} a root kit's launcher user (nobody) reaches, as the kit's own are
// (identity.Identity.TempDir).
func reachableBin(t *testing.T) string {
	bin := t.TempDir()
	if err := os.Chmod(filepath.Dir(bin), 0o711); err != nil {
		t.Fatal(err)
	}
	return bin
}

// A root kit whose folder its launcher's user cannot reach (in /root, or in Go's module cache
// below it) builds from a copy of its files, and says so; the build's output is then root's, out
// of that user's reach to rewrite. A {bin} out of its reach is refused before the build, naming
// the folder that stops it.
func TestARootKitOutOfTheLaunchersReachBuildsFromACopy(t *testing.T) {
	if !identity.Launcher().Other() {
		t.Skip("needs a root kit whose launcher runs as another user (Linux, as root)")
	}
	// Resolved: the log names the folder that stops the user on the resolved path, and TMPDIR
	// may be reached through a symlink.
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	kit := filepath.Join(tmp, "root", "kit") // as in /root: a folder of root's, 0700, on the way
	if err := os.MkdirAll(kit, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Dir(kit), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(kit, "src"), []byte("from the kit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Parse("m.yaml", []byte(good+`build:
  run: [sh, -c, 'cat "$0/src" >"$1/t" && chmod +x "$1/t" && id -u >"$1/uid"', "{kit}", "{bin}"]
`))
	if err != nil {
		t.Fatal(err)
	}
	bin := reachableBin(t)
	d, err := New(m, manifest.Paths{Kit: kit, Bin: bin}, "")
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	if err := d.Build(context.Background(), &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	got, _ := os.ReadFile(filepath.Join(bin, "t"))
	uid, _ := os.ReadFile(filepath.Join(bin, "uid"))
	fi, _ := os.Stat(filepath.Join(bin, "t"))
	if string(got) != "from the kit\n" || strings.TrimSpace(string(uid)) != fmt.Sprint(identity.Launcher().Uid) ||
		!strings.Contains(log.String(), "cannot pass through "+filepath.Dir(kit)+" (mode -rwx------)") || !strings.Contains(log.String(), "reads a copy of the kit") {
		t.Errorf("built %q as uid %q; want the kit's file, built as uid %d, and the copy named in the log:\n%s", got, uid, identity.Launcher().Uid, log.String())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || st.Uid != 0 || fi.Mode().Perm()&0o022 != 0 {
		t.Errorf("the built binary is %v, owned by uid %v: want root's, writable by root alone", fi.Mode(), fi.Sys())
	}
	rootsBin := filepath.Join(filepath.Dir(kit), "bin")
	if err := os.Mkdir(rootsBin, 0o755); err != nil {
		t.Fatal(err)
	}
	d, _ = New(m, manifest.Paths{Kit: kit, Bin: rootsBin}, "")
	if err := d.Build(context.Background(), io.Discard); err == nil || !strings.Contains(err.Error(), "the build step's {bin} is out of its reach: uid 65534") {
		t.Errorf("a {bin} out of reach: %v; want it named", err)
	}
}

// alive is proctable.Alive for a test: a process the test cannot read fails it loudly.
func alive(pid int) bool {
	a, err := proctable.Alive(pid)
	if err != nil {
		panic(err)
	}
	return a
}
