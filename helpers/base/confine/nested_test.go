package sandbox

import (
	"strings"
	"testing"
)

// What macOS prints when a launcher applies its own Seatbelt profile inside the kit's (as
// recorded in anthropic-experimental/sandbox-runtime#67 and appandflow/stim#469: exit 71) is
// told apart from a refused write, and explained with the way out; other output is not.
func TestANestedSeatbeltRefusalIsExplained(t *testing.T) {
	for _, out := range []string{
		"sandbox-exec: sandbox_apply: Operation not permitted\n",
		"Sandbox: sandbox-exec(27256) deny(1) forbidden-sandbox-reinit",
	} {
		why := Nested(out)
		for _, w := range []string{"Seatbelt profile of its own", "refuses inside another sandbox", "CLASSPROOF_SANDBOX=off", "--require-sandbox"} {
			if !strings.Contains(why, w) {
				t.Errorf("Nested(%q) = %q, want it to say %q", out, why, w)
			}
		}
	}
	for _, out := range []string{
		"open /Users/me/.cache/x: operation not permitted",
		"sandbox-exec: invalid profile",
		"",
	} {
		if why := Nested(out); why != "" {
			t.Errorf("Nested(%q) = %q, want nothing", out, why)
		}
	}
}

// Root's power is uid 0 or any effective capability, read from /proc/PID/status's CapEff.
func TestAnIdentitySaysWhetherItHoldsRoot(t *testing.T) {
	status := "Name:\tx\nCapInh:\t0000000000000000\nCapPrm:\t000001ffffffffff\nCapEff:\t000001ffffffffff\n"
	for _, c := range []struct {
		id   Identity
		root bool
	}{
		{Identity{Uid: 0, CapEff: capEff(status)}, true},
		{Identity{Uid: 1001, CapEff: "0000000000000000"}, false},
		{Identity{Uid: 1001, CapEff: "0000000000000400"}, true}, // CAP_NET_BIND_SERVICE alone is still a capability
		{Identity{Uid: 501}, false},                             // macOS: no CapEff
	} {
		if c.id.Root() != c.root || strings.Contains(c.id.String(), "(root:") != c.root {
			t.Errorf("%+v: Root %v, %q; want root %v", c.id, c.id.Root(), c.id, c.root)
		}
	}
	if got := capEff(status); got != "000001ffffffffff" {
		t.Errorf("capEff = %q", got)
	}
}
