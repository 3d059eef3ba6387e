package launcher

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/classproof/classproof/helpers/base/identity"
	"github.com/classproof/classproof/helpers/base/proctable"
	"github.com/classproof/classproof/helpers/manifest"
)

// A session with no report tells a pid the launcher named that is gone (a class step that failed
// before its exec) from one that runs something else, and says nothing of an answer with no pid.
func TestNamedPidsSaysWhatBecameOfEachPid(t *testing.T) {
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dead := gone.ProcessState.Pid()
	got := namedPids(fmt.Sprintf("harness pid %d class background", dead), "/x/report-1.json")
	want := fmt.Sprintf("the launcher named pid %d, which is not running: it exited before it became the harness", dead)
	if !strings.Contains(got, want) {
		t.Errorf("a pid that exited: got %q, want it to contain %q", got, want)
	}

	self := os.Getpid()
	got = namedPids(fmt.Sprintf("started: pid=%d", self), "/x/report-1.json")
	if !strings.Contains(got, fmt.Sprintf("the launcher named pid %d, which runs", self)) || !strings.Contains(got, "not this session's harness") {
		t.Errorf("a pid that runs something else: got %q", got)
	}
	if got := namedPids("session started, class background", "/x/report-1.json"); got != "" {
		t.Errorf("an answer naming no pid: got %q, want nothing", got)
	}
}

// A file the kit writes for a launcher goes below the instance's folder (files.WriteBeneath); one a
// manifest puts elsewhere is written as before by a kit whose launcher is its own user, and
// refused, naming the way out, by a root kit whose launcher runs as another.
func TestAFileForTheLauncherIsWrittenBelowItsFolder(t *testing.T) {
	l := &Instance{d: &Driver{Manifest: &manifest.Manifest{Source: "m.yaml"}, RunsAs: identity.Launcher()}, Dir: t.TempDir()}
	inside := filepath.Join(l.Dir, "home", "myl", "config.json")
	if err := l.WriteFile(inside, []byte("{}")); err != nil {
		t.Fatalf("below the folder: %v", err)
	}
	if b, _ := os.ReadFile(inside); string(b) != "{}" {
		t.Errorf("below the folder: wrote %q", b)
	}
	outside := filepath.Join(t.TempDir(), "elsewhere.json")
	err := l.WriteFile(outside, []byte("{}"))
	if identity.Launcher().Other() {
		if err == nil || !strings.Contains(err.Error(), "outside the launcher's folder") {
			t.Errorf("a root kit, outside the folder: %v; want a refusal naming it", err)
		}
	} else if b, _ := os.ReadFile(outside); err != nil || string(b) != "{}" {
		t.Errorf("outside the folder, the launcher the kit's own user: %q, %v", b, err)
	}
}

// The folder the kit hands out, and so every report path below it, is the resolved one: on macOS
// /tmp is a symlink to /private/tmp, and a launcher that resolves the path it passes on must not
// make the kit say "not the harness". Here the temp folder is a symlink, as /tmp is there.
func TestTheHandedOutFolderIsResolved(t *testing.T) {
	// Resolved here too: t.TempDir() is below TMPDIR as written, which may be a symlink itself
	// (macOS's /var/folders/... is /private/var/folders/...).
	real, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	short, err := os.MkdirTemp("/tmp", "l") // the kit takes /tmp for a TMPDIR too long for sockets
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(short)
	link := filepath.Join(short, "t")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", link)
	dir, err := privateDir(identity.Launcher(), false)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if r, _ := filepath.EvalSymlinks(dir); r != dir || !strings.HasPrefix(dir, real+"/") {
		t.Errorf("handed out %s, which resolves to %s; want the resolved path below %s", dir, r, real)
	}
}

// The report path a harness writes is read from its arguments as the harness's own flag parsing
// reads them; two of them (the kit would read the first, the harness writes the last), or one
// after the flags end, are no report the kit handed out.
func TestTheReportIsReadAsTheHarnessParsesIt(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"h", "--report", "/d/r.json", "--run", "cp-1"}, "/d/r.json"},
		{[]string{"h", "-report=/d/r.json"}, "/d/r.json"},
		{[]string{"h", "--tool", "--report", "--report", "/d/r.json"}, "/d/r.json"}, // --tool's value is "--report"
		{[]string{"h", "--report", "/d/r.json", "-report=/d/r.json.real"}, ""},      // two: ambiguous
		{[]string{"h", "--report", "/d/r.json", "--report", "/d/other"}, ""},
		{[]string{"h", "x", "--report", "/d/r.json"}, ""}, // after a positional, no flag is parsed
		{[]string{"h", "--", "--report", "/d/r.json"}, ""},
		{[]string{"h"}, ""},
	} {
		if got := reportOf(c.args); got != c.want {
			t.Errorf("reportOf(%q) = %q, want %q", c.args, got, c.want)
		}
	}
}

// An arguments read that fails on a live process that runs the harness's code is never "not a
// harness": macOS refuses another uid's arguments with EINVAL (XNU sysctl_procargsx), and a second
// harness started as another user passed Account so (issue 67). A process that ended is none.
func TestAnArgumentsErrorIsNeverNotAHarness(t *testing.T) {
	alive := func() (bool, error) { return true, nil }
	gone := func() (bool, error) { return false, nil }
	emfile := func() (bool, error) { return false, fmt.Errorf("pid 4242: %w", syscall.EMFILE) }
	einval := fmt.Errorf("sysctl kern.procargs2 4242: %w", syscall.EINVAL)
	noArgs := fmt.Errorf("pid 4242: %w", proctable.ErrNoArgs)
	for _, c := range []struct {
		what     string
		runs     bool
		err      error
		alive    func() (bool, error)
		harness  bool
		cantTell string
	}{
		{"runs the harness, arguments read", true, nil, alive, true, ""},
		{"the loader runs something else", false, nil, alive, false, ""},
		{"another uid's harness (EINVAL)", true, einval, alive, false, "cannot read its arguments (sysctl kern.procargs2 4242: invalid argument)"},
		{"a loader whose arguments cannot be read", false, einval, alive, false, "cannot read its arguments"},
		{"a harness in the middle of exec", true, noArgs, alive, false, "shows no arguments"},
		{"a harness that ended", true, einval, gone, false, ""},
		// A read error of the process table is no "ended" (issue 68).
		{"a harness the kit cannot tell ended (EMFILE)", true, einval, emfile, false, "nor tell whether it runs (pid 4242: too many open files)"},
	} {
		harness, cantTell := argsRead(c.runs, c.err, c.alive, "it runs the harness's code")
		if harness != c.harness || (c.cantTell == "") != (cantTell == "") || !strings.Contains(cantTell, c.cantTell) {
			t.Errorf("%s: harness %v, cannot tell %q; want harness %v, cannot tell %q", c.what, harness, cantTell, c.harness, c.cantTell)
		}
	}
}
