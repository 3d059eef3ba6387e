package confine

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
