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

// A burst's session command runs as a single session's does: the same program, the one the kit
// resolved (never looked up again on the launcher's PATH, here one whose first entry is a relative
// folder the kit skips and a shell would search in the session's folder), with the same env (no
// PWD, SHLVL or _ of a holding shell's). Linux: the client reads its env as the kernel got it.
func TestABurstSessionRunsTheProgramAndEnvASingleSessionDoes(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("reads /proc/PID/environ")
	}
	bin := reachableBin(t)
	client := filepath.Join(bin, "client")
	writeScript(t, client, `cat /proc/$$/environ > "$1.env"; echo "$0" > "$1.prog"; exit 3`)
	t.Setenv("PATH", "decoy"+string(filepath.ListSeparator)+bin+string(filepath.ListSeparator)+os.Getenv("PATH"))
	l := launchedFrom(t, `
name: t
class_env: T_CLASS
background: {darwin: darwinbg, linux: idle}
daemon: {run: [sleep, "600"]}
session:
  direct: [client, "{profile}"]
`, 5*time.Second)
	if err := os.Mkdir(filepath.Join(l.Dir, "decoy"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeScript(t, filepath.Join(l.Dir, "decoy", "client"), `cat /proc/$$/environ > "$1.env"; echo decoy > "$1.prog"; exit 3`)

	_, single := l.StartSession(Direct, nil)
	_, burst := StartTogether([]Ask{{L: l, Mode: Direct}})
	saw := func(what string, err error) (env, prog string) {
		var refused *SessionError
		if !errors.As(err, &refused) {
			t.Fatalf("the %s session: %v; want the client's refusal (exit 3)", what, err)
		}
		p := refused.Argv[len(refused.Argv)-1] // {profile}
		e, _ := os.ReadFile(p + ".env")
		g, _ := os.ReadFile(p + ".prog")
		return string(e), strings.TrimSpace(string(g))
	}
	env1, prog1 := saw("single", single)
	env2, prog2 := saw("burst's", burst[0])
	if prog1 != client || prog2 != client {
		t.Errorf("the single session ran %q, the burst's %q; want both %s, the program the kit resolved", prog1, prog2, client)
	}
	if env1 == "" || env2 != env1 {
		t.Errorf("the burst's session command's env differs from a single session's: only the single's %q, only the burst's %q (the same entries in another order: %v)",
			only(env1, env2), only(env2, env1), only(env1, env2) == nil && only(env2, env1) == nil)
	}
}

// The time a burst holds its clients is not theirs: each ask's bound starts at the release. Here
// one instance's client is slow to reach the hold (its shell takes seconds to start), and the
// other instance's timeout is shorter than that; its session still gets its whole timeout.
func TestABurstCountsEachAsksTimeFromTheRelease(t *testing.T) {
	slow := reachableBin(t)
	// The holding shell is found by name: this one is slow where the session's folder says so.
	writeScript(t, filepath.Join(slow, "sh"), `if [ -e ./hold-slowly ]; then sleep 3; fi; exec /bin/sh "$@"`)
	t.Setenv("PATH", slow+string(filepath.ListSeparator)+os.Getenv("PATH"))
	const m = `
name: t
class_env: T_CLASS
background: {darwin: darwinbg, linux: idle}
daemon: {run: [sleep, "600"]}
session:
  direct: [/bin/sh, -c, "exit 3"]
`
	quick, slowly := launchedFrom(t, m, time.Second), launchedFrom(t, m, 20*time.Second)
	if err := os.WriteFile(filepath.Join(slowly.Dir, "hold-slowly"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs := StartTogether([]Ask{{L: quick, Mode: Direct}, {L: slowly, Mode: Direct}})
	for i, err := range errs {
		var refused *SessionError
		if !errors.As(err, &refused) || !strings.Contains(refused.Err.Error(), "exit status 3") || strings.Contains(refused.Err.Error(), "no answer") {
			t.Errorf("ask %d: %v; want the session command's own refusal (exit 3), not a timeout", i+1, err)
		}
	}
}

// only is the NUL-separated entries of a that b lacks.
func only(a, b string) []string {
	in := map[string]bool{}
	for _, kv := range strings.Split(b, "\x00") {
		in[kv] = true
	}
	var out []string
	for _, kv := range strings.Split(a, "\x00") {
		if !in[kv] {
			out = append(out, kv)
		}
	}
	return out
}

// writeScript writes a shell script others may run.
func writeScript(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}
