package confine

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// sandboxExec applies a Seatbelt profile and execs the command (sandbox-exec(1); the way
// Bazel's darwin sandbox runs every action: src/main/java/com/google/devtools/build/lib/sandbox/
// DarwinSandboxedSpawnRunner.java writes "(allow default)", "(deny file-write*)" and then
// "(allow file-write* (subpath ...))" per writable folder). Seatbelt applies the last rule that
// matches, so the allows after the deny win for their folders, and the profile holds for the
// process and everything it forks.
const sandboxExec = "/usr/bin/sandbox-exec"

// kernelDirs: /dev, as Bazel's darwin sandbox allows it ((subpath "/dev"),
// DarwinSandboxedSpawnRunner.java): devfs holds devices only, and a launcher writes the ptys it
// opens (/dev/ptmx, /dev/ttys*), /dev/stderr and /dev/fd/N, which name its own descriptors.
var kernelDirs = []string{"/dev"}

// probeProfile has a deny, as the kit's profiles do, of each operation they deny (a macOS that
// did not know file-link would refuse the probe, and the run say so, not fail every launch): macOS applies a profile with no deny inside
// another sandbox but refuses one with any deny there (forbidden-sandbox-reinit), so only a probe
// of that shape says whether the kit's own profiles will apply.
const probeProfile = `(version 1)(allow default)(deny file-write* (literal "/private/var/empty/classproof-probe"))(deny file-link (literal "/private/var/empty/classproof-probe"))`

// detect tries the sandbox once before declaring it, as Bazel's darwin sandbox does
// (DarwinSandboxedSpawnRunner.isSupported runs sandbox-exec on /usr/bin/true with an empty
// environment in /usr/bin): a kit that itself runs in a Seatbelt sandbox (an agent's, another
// tool's) has sandbox-exec but cannot apply a profile, and every launcher process would fail.
func detect() State {
	fi, err := os.Stat(sandboxExec)
	if err != nil || fi.Mode()&0o111 == 0 {
		return State{Kind: "none", Why: fmt.Sprintf("%s is not there (%v)", sandboxExec, err)}
	}
	probe := exec.Command(sandboxExec, "-p", probeProfile, "/usr/bin/true")
	probe.Env, probe.Dir = []string{}, "/usr/bin"
	out, err := probe.CombinedOutput()
	if err != nil {
		why := fmt.Sprintf("%s could not apply a profile here (%v: %q)", sandboxExec, err, strings.TrimSpace(string(out)))
		if nestedRE.Match(out) {
			why += ": this kit runs inside a Seatbelt sandbox already, and macOS refuses another inside it; run the kit outside it"
		}
		return State{Kind: "none", Why: why}
	}
	return State{Kind: "seatbelt"}
}

// Spawner starts processes under one policy. Each gets sandbox-exec with p's profile, which
// applies it and execs the command (same pid, same process group); with the sandbox off, a
// process starts as it is. Seatbelt here scopes writes only, so a launcher's processes started
// apart still signal one another.
type Spawner struct{ p Policy }

// NewSpawner is a Spawner for p.
func NewSpawner(p Policy) *Spawner { return &Spawner{p: p} }

// Start starts cmd under the profile.
func (s *Spawner) Start(cmd *exec.Cmd) error {
	if cmd.Err != nil || !Current().On() {
		return cmd.Start()
	}
	path := cmd.Path
	cmd.Args = append([]string{sandboxExec, "-p", profile(s.p), path}, cmd.Args[1:]...)
	cmd.Path = sandboxExec
	return cmd.Start()
}

// Close has nothing to end on macOS.
func (s *Spawner) Close() {}

// profile is p in Seatbelt's language, with macOS's kernel folders (seatbeltProfile).
func profile(p Policy) string { return seatbeltProfile(p, kernelDirs) }

// InjectFault does nothing here: faults are injected on Linux only (faults.Check says so first).
func (s *Spawner) InjectFault(Fault) {}
