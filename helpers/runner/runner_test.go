package runner_test

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/classproof/classproof/helpers/gate"
	"github.com/classproof/classproof/helpers/kit"
	"github.com/classproof/classproof/helpers/runner"
)

func kitDir(t *testing.T) string {
	t.Helper()
	dir, err := kit.KitDir()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// A launcher binary that is missing is one message, before any suite compiles.
func TestMissingLauncherIsOnePreflightError(t *testing.T) {
	dir := kitDir(t)
	manifest := filepath.Join(t.TempDir(), "gone.yaml")
	os.WriteFile(manifest, []byte(`
name: gone
class_env: GONE_CLASS
background: {darwin: unsupported, linux: idle}
daemon: {run: ["/nonexistent/gone", daemon, "{socket}"], ready: {socket: "{socket}"}}
session: {direct: ["/nonexistent/gone", session, "{profile}"]}
`), 0o644)
	before, _ := filepath.Glob(filepath.Join(dir, "out", ".suites-*"))
	_, err := runner.Run(context.Background(), runner.Options{KitDir: dir, Target: manifest, OutDir: t.TempDir(), Log: io.Discard})
	var pe *runner.PreflightError
	if !errors.As(err, &pe) {
		t.Fatalf("got %v, want a preflight error", err)
	}
	msg := err.Error()
	for _, want := range []string{manifest, `daemon.run[0], session.direct[0] "/nonexistent/gone"`, "no such file or directory"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Count(msg, "/nonexistent/gone\"") != 1 {
		t.Errorf("the missing binary is named more than once:\n%s", msg)
	}
	after, _ := filepath.Glob(filepath.Join(dir, "out", ".suites-*"))
	if len(after) > len(before) {
		t.Errorf("a suite was compiled before the preflight refused the target: %v", after)
	}
}

// A launcher that keeps the seed's promises in its own words (shmux, in bash: lowercase values
// only, refusals that do not name the profile, config --get printing nothing for an unset key,
// no spawn-spec interface), described by a manifest that declares no convention, passes its lane:
// nothing fails, nothing skips at run time, every left-out spec has its reason, and the gate
// accepts the lane.
func TestAConventionsFreeLauncherPassesItsLane(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every suite against shmux")
	}
	if runtime.GOOS != "linux" {
		t.Skip("shmux is Linux only (util-linux chrt and ionice)")
	}
	for _, tool := range []string{"bash", "chrt", "ionice", "setsid", "flock", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("shmux needs %s: %v", tool, err)
		}
	}
	out := filepath.Join(t.TempDir(), "lanes", "linux-idle")
	res, err := runner.Run(context.Background(), runner.Options{KitDir: kitDir(t), Target: "embedded:shmux-bare.yaml",
		Lane: "linux-idle", Procs: 2, OutDir: out, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Run.Count()
	t.Logf("shmux-bare, linux-idle: %d ran, %d passed, %d failed, %d skipped at run time, %d left out", c.Ran, c.Passed, c.Failed, c.Skipped, c.Filtered)
	if !res.Passed() || c.Failed != 0 || c.Skipped != 0 || c.Ran == 0 {
		t.Fatalf("the lane did not pass: %+v, problems %v\n%s", c, res.Problems, res.Run.Summary(res.Filter))
	}
	leftOut := map[string]int{}
	for _, s := range res.Run.Specs {
		if s.Filtered {
			label, why := res.Run.LeftOutReason(s)
			if label == "other" {
				t.Errorf("left out with no reason: %s", s.Name)
			}
			leftOut[label+": "+why]++
		}
	}
	for _, want := range []string{"conv-fold-case", "conv-names-profile", "conv-empty-unset", "needs-spawn-spec"} {
		found := false
		for k := range leftOut {
			found = found || strings.HasPrefix(k, want+": ")
		}
		if !found {
			t.Errorf("no spec left out for %s: %v", want, leftOut)
		}
	}
	v, err := gate.Evaluate(filepath.Dir(out), nil, []string{"linux-idle"})
	if err != nil || !v.Pass {
		t.Fatalf("the gate refused the lane: %v %v", err, v.Reasons)
	}
}
