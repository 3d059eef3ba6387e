//go:build e2e

package runner_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/classproof/classproof/helpers/base/cgroup"
	"github.com/classproof/classproof/helpers/base/proc"
	"github.com/classproof/classproof/helpers/lane"
)

// Two kits that share a cgroup tree but not a pid namespace (CI jobs in containers on one host)
// both pass: the one inside `unshare --pid` cannot see the other's pid, so its sweep of stale
// cgroups must not take the other's live run cgroup for a crashed one.
func TestTwoKitsInOtherPidNamespacesBothPass(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two runs")
	}
	if os.Geteuid() != 0 {
		t.Skip("unshare --pid needs root (CAP_SYS_ADMIN); the unprivileged rehearsal has no cgroup to share")
	}
	if cgroup.Contained().Cgroup == nil {
		t.Skipf("no writable cgroup v2 here: %s", cgroup.Contained().Why)
	}
	// Both CLIs make their run's cgroup in their own cgroup, which is this test process's (the
	// parent of the one it made for itself), so each sweep reads the other's folder.
	outer := exec.Command(cli(t), "run", "--suite", "./suites/cpuclass", "--out", t.TempDir())
	outer.Dir = kitDir(t)
	var outerLog bytes.Buffer
	outer.Stdout, outer.Stderr = &outerLog, &outerLog
	if err := outer.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = outer.Process.Kill() })
	prefix := filepath.Join(filepath.Dir(cgroup.Contained().Cgroup.Path), fmt.Sprintf("classproof-%d-", outer.Process.Pid))
	if err := proc.Until(time.Now().Add(lane.Scale(2*time.Minute)), 20*time.Millisecond, func() (bool, error) {
		m, _ := filepath.Glob(prefix + "*")
		return len(m) > 0, nil
	}); err != nil {
		t.Fatalf("the outer run made no cgroup %s*: %v\n%s", prefix, err, outerLog.String())
	}
	inner := exec.Command("unshare", "--pid", "--fork", "--mount-proc", cli(t), "run", "--suite", "./suites/cpuclass", "--focus", oneSpec, "--out", t.TempDir())
	inner.Dir = kitDir(t)
	innerLog, innerErr := inner.CombinedOutput()
	outerErr := outer.Wait()
	if innerErr != nil {
		t.Errorf("the run in its own pid namespace: %v\n%s", innerErr, innerLog)
	}
	if outerErr != nil {
		t.Errorf("the run outside it, while the other ran: %v\n%s", outerErr, outerLog.String())
	}
	for _, l := range []string{string(innerLog), outerLog.String()} {
		if !strings.Contains(l, "containment: cgroup v2") {
			t.Errorf("a run without a cgroup proves nothing here:\n%s", l)
		}
	}
}
