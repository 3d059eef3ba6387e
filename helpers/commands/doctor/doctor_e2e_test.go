//go:build e2e

package doctor

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/classproof/classproof/fixtures/targets"
)

// The doctor drives a real launcher once: what it finds in shmux (its own wording, no spawn-spec
// interface) is what the manifest should declare, and what the kit will leave out.
func TestDoctorOnTheShellLauncher(t *testing.T) {
	r, out := doctor(t, "embedded:shmux-bare.yaml")
	for _, want := range []string{
		"[yes] a direct session starts the harness: direct harness pid",
		"[yes] the direct harness and its tool are at idle as the lane reads them",
		"[yes] config --get on an unset key prints nothing and exits 0",
		"[no ] refusals name the profile",
		// A claim says what it rests on: a newcomer's doctor said "value" from turbo alone, and
		// the lane then failed on a reference's refusal.
		"[yes] a reference to an unset variable (${env:CP_DOCTOR_UNSET}) is refused",
		"[yes] refusals name the value (tried: turbo, ${env:CP_DOCTOR_UNSET})",
		"needs-spawn-spec: target shmux-bare declares no agent host with a raw spawn-spec command",
		"config_get_unset: empty",
		"the launcher can be driven",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the checklist lacks %q:\n%s", want, out.String())
		}
	}
	if !r.Drivable {
		t.Error("shmux reported as not drivable")
	}
	// A receipt is never cut, and a launcher's lines are not joined with a stray " | ".
	if strings.Contains(out.String(), "…") || strings.Contains(out.String(), " | ") {
		t.Errorf("the checklist cuts or joins a receipt:\n%s", out.String())
	}
}

// A launcher that is not there is an error before anything starts.
func TestDoctorRefusesAMissingLauncher(t *testing.T) {
	m := filepath.Join(t.TempDir(), "gone.yaml")
	os.WriteFile(m, []byte("name: gone\nclass_env: G\nbackground: {darwin: unsupported, linux: idle}\ndaemon: {run: [/nonexistent/gone]}\nsession: {direct: [/nonexistent/gone, \"{profile}\"]}\n"), 0o644)
	gone, err := targets.Resolve(m, "", nil, "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), Options{Target: gone, Out: &bytes.Buffer{}, Timeout: time.Second})
	if err == nil || !strings.Contains(err.Error(), `"/nonexistent/gone"`) {
		t.Errorf("got %v", err)
	}
}

// A harness whose own autogroup is left at nice 0 passes a glance at ps (IDL) and fails the lane:
// the doctor says so before the run, and how to fix it.
func TestDoctorFlagsTheAutogroupRule(t *testing.T) {
	_, out := doctor(t, "embedded:shmux-bare.yaml", "variant=autogroup-0")
	for _, want := range []string{"[no ] the direct harness and its tool are at idle as the lane reads them", "nice 0, expected 19 (its own autogroup)",
		"the lane will fail this: the autogroup rule", "write 19 to /proc/self/autogroup after setsid, before"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the doctor's checklist lacks %q:\n%s", want, out.String())
		}
	}
}

// doctor runs the doctor on a target with vars, as the CLI does, and returns what it printed.
func doctor(t *testing.T, target string, vars ...string) (*Report, *bytes.Buffer) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a launcher")
	}
	resolved, err := targets.Resolve(target, "", vars, "")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	r, err := Run(context.Background(), Options{Target: resolved, Out: &out, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return r, &out
}
