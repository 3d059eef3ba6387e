// Package confine keeps a launcher's processes from writing anything the verdict rests on. A
// launcher under test runs as the kit's own user, so without it every process the launcher
// starts could rewrite the suites' binaries, the reports and run.json. Each launcher process
// (its build step, daemon, host, every client command) starts through a Spawner, which puts it,
// and all it will ever start, under a policy that allows writes only below the folders the kit
// made for it (Policy.Dirs), a few single files (Policy.Files) and /dev/null: on Linux a Landlock
// ruleset enforced on a thread of the Spawner's own, which forks every process from it, on macOS
// a Seatbelt profile given to sandbox-exec. Reading and executing stay as they were.
//
// Who those processes run as is helpers/base/identity; the fault a kill matrix injects into their
// class calls, helpers/base/faults, which a Spawner installs through Fault. It imports nothing of
// the kit but contract and files (ci/layers.rules).
package confine

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/classproof/classproof/helpers/base/contract"
)

// Off is the value of contract.SandboxEnv that starts launcher processes without the sandbox.
const Off = "off"

// capPrefix, followed by N, is the value of contract.SandboxEnv that uses at most Landlock ABI N
// (Linux): what an older kernel gives (GitHub's hosted runners: 4 or 5), on a newer one, for the
// kit's tests. Elsewhere it changes nothing.
const capPrefix = "abi"

// Policy is what a launcher process, and everything it starts, may write.
type Policy struct {
	Dirs  []string // folders written below (made by the kit for it, or declared by its manifest)
	Files []string // single files written (the run's pid ledger, which the harness appends to)
}

// State is the sandbox this machine gives launcher processes.
type State struct {
	Kind   string // "landlock", "seatbelt" or "none"
	ABI    int    // Landlock's ABI version on Linux: the one enforced
	Kernel int    // the kernel's own ABI, when contract.SandboxEnv capped ABI below it
	Why    string // for "none": why not
}

// On says whether launcher processes run sandboxed.
func (s State) On() bool { return s.Kind != "none" }

// Confined says whether every way a launcher process could change a file the verdict rests on
// is refused: Seatbelt's file-write*, or Landlock from ABI 3 (truncate). What lacks beyond that
// (Lacks: signals, abstract sockets) can stop a run, never forge one.
func (s State) Confined() bool {
	return s.Kind == "seatbelt" || (s.Kind == "landlock" && s.ABI >= 3)
}

// Lacks lists what this sandbox does not enforce, in words for the run's summary and run.json.
func (s State) Lacks() []string {
	switch s.Kind {
	case "landlock":
		var out []string
		if s.ABI < 2 {
			out = append(out, "moving a file between folders (refer, ABI 2) not refused")
		}
		if s.ABI < 3 {
			out = append(out, "truncating a file (truncate, ABI 3) not refused")
		}
		if s.ABI < 6 {
			out = append(out, "signals and abstract unix sockets not scoped (ABI 6, Linux 6.12): a launcher process may signal the kit and its test processes")
		}
		return out
	case "seatbelt":
		return []string{"signals not scoped (Seatbelt confines writes only)"}
	case "none":
		return []string{"writes not confined"}
	}
	return nil
}

func (s State) String() string {
	var what string
	switch s.Kind {
	case "landlock":
		what = fmt.Sprintf("landlock ABI %d (launcher processes write only the folders the kit made for them", s.ABI)
		if s.Kernel > s.ABI {
			what += fmt.Sprintf("; capped by %s=%s%d, the kernel has ABI %d", contract.SandboxEnv, capPrefix, s.ABI, s.Kernel)
		}
		if s.ABI >= 6 {
			what += "; signals and abstract sockets scoped to the launcher's own processes"
		}
		what += ")"
	case "seatbelt":
		what = "seatbelt (sandbox-exec: launcher processes write only the folders the kit made for them)"
	default:
		return "none: " + s.Why
	}
	if lacks := s.Lacks(); len(lacks) > 0 {
		what += "; not enforced: " + strings.Join(lacks, "; ")
	}
	return what
}

var (
	once  sync.Once
	state State
)

// Current is this machine's sandbox, worked out once per process.
func Current() State {
	once.Do(func() {
		v := contract.Current().Sandbox
		if v == Off {
			state = State{Kind: "none", Why: fmt.Sprintf("turned off by %s=%s", contract.SandboxEnv, Off)}
			return
		}
		state = capped(detect(), v)
	})
	return state
}

// capped applies a contract.SandboxEnv value of "abiN" to a Landlock state.
func capped(s State, v string) State {
	var n int
	if _, err := fmt.Sscanf(v, capPrefix+"%d", &n); err != nil || s.Kind != "landlock" || n < 1 || n >= s.ABI {
		return s
	}
	s.Kernel, s.ABI = s.ABI, n
	return s
}

// deniedRE finds, in what a process printed, a path it was refused a write to, in the words of
// the usual tools: Go's and most libcs' "open /x: permission denied", sh's "cannot create /x:
// Permission denied", coreutils' "cannot ... '/x': Permission denied".
var deniedRE = regexp.MustCompile(`(?i)['"]?(/[^\s'":]+)['"]?:?[^\n/]{0,40}?(permission denied|operation not permitted|read-only file system)`)

// Denied is each path output names as refused that p does not allow: a write the sandbox stopped
// (best effort: it reads what the process printed about it).
func Denied(output string, p Policy) []string {
	if !Current().On() {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, m := range deniedRE.FindAllStringSubmatch(output, 20) {
		path := filepath.Clean(m[1])
		if seen[path] || p.Allows(path) {
			continue
		}
		seen[path] = true
		out = append(out, path)
	}
	sort.Strings(out)
	return out
}

// nestedRE is how sandbox-exec says macOS refused a profile inside another sandbox: "sandbox-exec:
// sandbox_apply: Operation not permitted", exit 71, logged by the kernel's Sandbox policy as
// forbidden-sandbox-reinit. A profile with any deny cannot be applied under one that has a deny.
var nestedRE = regexp.MustCompile(`sandbox_apply: Operation not permitted|forbidden-sandbox-reinit`)

// Nested is, when output shows a launcher process refused its own Seatbelt profile inside the
// kit's, what that means and the way out; "" otherwise. It names no path: no rule the kit could
// add would let the inner profile apply.
func Nested(output string) string {
	if !nestedRE.MatchString(output) {
		return ""
	}
	return fmt.Sprintf("the launcher applies a Seatbelt profile of its own (sandbox_apply: Operation not permitted), which macOS refuses inside another sandbox, the kit's: no folder the manifest declares changes that. Either start the launcher with its own sandbox turned off under test (the kit's confines its writes), or run the kit with %s=%s: its processes then run unsandboxed, the run says so, and gate --require-sandbox blocks the lane", contract.SandboxEnv, Off)
}

// Allows says whether p lets a launcher process write path.
func (p Policy) Allows(path string) bool {
	for _, d := range append(append([]string(nil), p.Dirs...), kernelDirs...) {
		if path == d || strings.HasPrefix(path, strings.TrimSuffix(d, "/")+"/") {
			return true
		}
	}
	for _, f := range append(p.Files, devices...) {
		if path == f {
			return true
		}
	}
	return false
}

// devices are written by nearly every program (os/exec gives a child with no output /dev/null),
// and /dev/ptmx by every one that makes a pty (tmux, script(1), node-pty, expect); writing them
// reaches no file.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx"}

// Fault is what a Spawner puts on its thread before it starts its first process, and so on every
// process it starts: a seccomp filter is the thread's, inherited by fork and kept across exec
// (helpers/base/faults: the run's injected fault, or its probe). The Spawner owns it once given:
// it installs it, and closes it when it closes.
type Fault interface {
	Install() error // on the calling thread, the Spawner's; an error fails the first Start
	Close()         // after the Spawner's last process started; a no-op if never installed
}

// Start starts cmd alone under p (a build step): a Spawner of its own, closed once it started.
func Start(cmd *exec.Cmd, p Policy) error {
	s := NewSpawner(p)
	defer s.Close()
	return s.Start(cmd)
}
