package contract

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// What the CLI encodes the suites decode, a var with spaces and quotes intact; a kit variable the
// CLI leaves unset is unset for the child, never inherited from the caller.
func TestARunRoundTripsThroughTheEnvironment(t *testing.T) {
	want := Run{Target: "/m.yaml", Vars: []string{"variant=noclass", `note=a "b" c`}, Bin: "/bin", Repo: "/r",
		Kit: "/k", Harness: "/h", Ledger: "/l", Supervisor: "1 2", Token: "cp-1", Scale: "2"}
	inherited := []string{"PATH=/bin", BinEnv + "=/stale", LedgerEnv + "=/elsewhere"}
	for _, kv := range want.Over(inherited) {
		name, v, _ := strings.Cut(kv, "=")
		t.Setenv(name, v)
	}
	got, err := FromEnv()
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("decoded %+v (%v), want %+v", got, err, want)
	}
	env := (Run{Target: "/m.yaml"}).Over(inherited)
	for _, kv := range env {
		if strings.HasPrefix(kv, BinEnv+"=") || strings.HasPrefix(kv, LedgerEnv+"=") {
			t.Errorf("an inherited kit variable survived: %s", kv)
		}
	}
	t.Setenv(VarsEnv, "variant=noclass")
	if _, err := FromEnv(); err == nil || !strings.Contains(err.Error(), "$CLASSPROOF_VARS") {
		t.Errorf("a malformed vars list: %v", err)
	}
}

// Scaled is the one reading of the time scale: a bad value is an error naming the variable,
// with d unscaled beside it (a cleanup's bound), never a silent default.
func TestScaled(t *testing.T) {
	t.Setenv(ScaleEnv, "3")
	if d, err := Scaled(2 * time.Second); d != 6*time.Second || err != nil {
		t.Errorf("2s scaled by 3: %v, %v", d, err)
	}
	for _, v := range []string{"0", "-2", "slow"} {
		t.Setenv(ScaleEnv, v)
		if d, err := Scaled(2 * time.Second); d != 2*time.Second || err == nil || !strings.Contains(err.Error(), ScaleEnv) {
			t.Errorf("%s=%s: %v, %v; want 2s and an error naming the variable", ScaleEnv, v, d, err)
		}
	}
}
