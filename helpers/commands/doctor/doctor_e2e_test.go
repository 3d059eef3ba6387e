//go:build e2e

package doctor

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
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

// Where a manifest declares a convention, the doctor tries what the run will judge of it, so a
// green doctor is not followed by a red run: an empty reference result taken as unset (the next
// source deciding, as explain says), and a config --set into a read-only folder failing, losing
// nothing and naming the folder. testdata/emptyref.yaml declares both whatever its launcher does.
func TestDoctorTriesWhatADeclaredConventionHasTheRunJudge(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("testdata/emptyref.yaml is a Linux launcher")
	}
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("testdata/emptyref.py needs /usr/bin/python3")
	}
	target, err := filepath.Abs("testdata/emptyref.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		vars       []string
		want, lack []string
	}{
		{nil, []string{
			`[yes] an empty reference result counts as unset (${env:CP_DOCTOR_EMPTY}, the daemon's CP_DOCTOR_EMPTY is "")`,
			"[yes] config --set fails when the config folder is read-only, and loses nothing: it said emptyref: cannot write config folder",
			"[yes] the failed write names the config folder",
			"\n  empty_is_unset: true\n",
		}, []string{"the run judges this"}},
		{[]string{"empty_ref=refuse", "write=swallow"}, []string{
			"[no ] an empty reference result counts as unset (${env:CP_DOCTOR_EMPTY}, the daemon's CP_DOCTOR_EMPTY is \"\"): refused: it said emptyref:",
			"the manifest declares conventions.empty_is_unset: true: the run judges this, and fails on it",
			"[no ] config --set fails when the config folder is read-only, and loses nothing: --set normal reported success; it said nothing",
			"the manifest declares conventions.refusals_name: [file]: the run judges this, and fails on it",
		}, []string{"\n  empty_is_unset: true\n"}},
		{[]string{"empty_ref=profile"}, []string{
			"[no ] an empty reference result counts as unset (${env:CP_DOCTOR_EMPTY}, the daemon's CP_DOCTOR_EMPTY is \"\"): the session started, but explain says the profile decided: class=background source=profile",
		}, []string{"\n  empty_is_unset: true\n"}},
	} {
		_, out := doctor(t, target, c.vars...)
		for _, w := range c.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%v: the checklist lacks %q:\n%s", c.vars, w, out.String())
			}
		}
		for _, w := range c.lack {
			if strings.Contains(out.String(), w) {
				t.Errorf("%v: the checklist holds %q:\n%s", c.vars, w, out.String())
			}
		}
	}
}
