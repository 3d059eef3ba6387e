package launcher

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A burst is one however slowly each client starts: no session command runs before the kit has
// started every client of the burst (each command sees every profile the kit wrote for it, the
// last written just before the last client started), and each runs with the kit's two held
// pipes closed, as the manifest wrote it.
func TestABurstRunsNoSessionCommandBeforeEveryClientIsStarted(t *testing.T) {
	l := launchedFrom(t, `
name: t
class_env: T_CLASS
background: {darwin: darwinbg, linux: idle}
daemon: {run: [sleep, "600"]}
session:
  direct: [sh, -c, 'ls "$1"/profile-*.json | wc -l | tr -d " " > "$0.seen"; if [ -e /dev/fd/3 ] || [ -e /dev/fd/4 ]; then echo held-pipe-open >> "$0.seen"; fi; exit 3', "{profile}", "{dir}"]
`, 5*time.Second)
	const n = 6
	asks := make([]Ask, n)
	for i := range asks {
		asks[i] = Ask{L: l, Mode: Direct}
	}
	sessions, errs := StartTogether(asks)
	for i := range asks {
		var refused *SessionError
		if sessions[i] != nil || !errors.As(errs[i], &refused) || !strings.Contains(refused.Err.Error(), "exit status 3") {
			t.Errorf("ask %d: session %v, error %v; want the session command's refusal (exit 3)", i+1, sessions[i], errs[i])
		}
		seen := filepath.Join(l.Dir, fmt.Sprintf("profile-%d.json.seen", i+1))
		b, err := os.ReadFile(seen)
		if got := strings.TrimSpace(string(b)); err != nil || got != fmt.Sprint(n) {
			t.Errorf("the session command of ask %d of %d saw %q profiles when it ran (%v); want all %d: it ran before the kit had started every client", i+1, n, got, err, n)
		}
	}
}
