// Package contract is the run contract: what the CLI hands the suites, and the suites hand the
// launcher, through the environment. Every CLASSPROOF_* variable is spelled here and nowhere else.
// The CLI encodes a Run (Environ) and the suites' processes decode it (FromEnv), as the Kubernetes
// e2e framework's TestContext is filled once and read everywhere; lower layers read the one field
// they need from the decoded Run, never the variable by name. The fixture harness's report
// (HarnessReport, harness.go) is the contract's too: what the harness writes and the kit reads.
//
// It is the bottom layer: it imports nothing of the kit.
package contract

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Prefix marks the kit's own variables; a launcher's environment holds none of them but the
// run's token (launcher.Driver).
const Prefix = "CLASSPROOF_"

// The variables.
const (
	// Set by the CLI for the suites.
	TargetEnv  = Prefix + "TARGET"  // a manifest path or embedded:NAME; unset: the embedded default
	VarsEnv    = Prefix + "VARS"    // a JSON list of NAME=VALUE overrides of the manifest's vars
	BinEnv     = Prefix + "BIN"     // a folder where the launcher is already built: no build step
	RepoEnv    = Prefix + "REPO"    // the launcher's source tree, for {repo}
	KitEnv     = Prefix + "KIT"     // the kit's source folder: the suites run from a compile folder outside it
	HarnessEnv = Prefix + "HARNESS" // the fixture harness the CLI built once for the whole run
	LedgerEnv  = Prefix + "LEDGER"  // the run's pid ledger, every Set appends to it
	// The root-owned copy of what the harnesses wrote into the ledger channel of the run's uid
	// (helpers/base/proc, OpenChannel); unset where the run has no channel.
	LedgerCopyEnv = Prefix + "LEDGER_COPY"
	SupervisorEnv = Prefix + "SUPERVISOR" // "PID START NS" of the CLI supervising the run (proc.Watch)
	CgroupEnv     = Prefix + "CGROUP"     // the run's cgroup v2 folder on Linux, below which every launcher process starts
	// Set by the user or a test: "off" starts launcher processes without the write sandbox (how a
	// kernel without Landlock is simulated; the run then says so and gate --require-sandbox blocks);
	// "abiN" (Linux) enforces at most Landlock ABI N, what an older kernel gives (GitHub's hosted
	// runners: 4 or 5), and the run says what that leaves out.
	SandboxEnv = Prefix + "SANDBOX"
	// Set by the user: who a root kit's launcher processes run as on Linux, "UID" or "UID:GID"
	// (unset: 65534:65534, nobody); "0" keeps root, which the run says and gate --require-sandbox
	// blocks (helpers/base/identity, Launcher).
	LauncherUIDEnv = Prefix + "LAUNCHER_UID"
	// Set by the CLI for the suites: "UID:GID" of the run's own launcher user, which a root kit
	// takes for each run when the user chose none (helpers/base/identity, ForRun).
	RunUIDEnv = Prefix + "RUN_UID"
	// Set by the user: the bounds on a run's launcher processes, e.g. "procs=4096 memory=2GiB"
	// (helpers/base/limits, Launcher).
	LauncherLimitsEnv = Prefix + "LAUNCHER_LIMITS"
	// Set by the CLI for the suites (classproof mutants --inject): a class system call that every
	// process of a launcher instance sees succeed without effect, and the file each call is
	// recorded in (helpers/base/faults).
	InjectEnv    = Prefix + "INJECT"
	InjectLogEnv = Prefix + "INJECT_LOG"
	// Set by the CLI for the suites (a kill matrix's reference run): "on" asks every launcher
	// process of a target that declares sites_env to record the variant sites it reaches
	// (SitesEntry).
	SitesEnv = Prefix + "SITES"
	// Set by the CLI for the suites, and by the suites for the launcher: the run's token, which
	// every process of the run carries (proc.Tied).
	TokenEnv = Prefix + "RUN"
	// Set by the user (a slow CI machine): multiplies every timeout in the kit.
	ScaleEnv = Prefix + "TIME_SCALE"
)

// PhaseEntry prefixes the names of the Ginkgo report entries in which the suites' glue (helpers/suite) records
// where a spec's time went (launch, session, observe, control, cleanup); the CLI's report reads
// them back. Never shown in Ginkgo's output.
const PhaseEntry = "classproof.phase "

// WholeRunPrefix begins the text of each suite's whole-run spec ("the whole run of the cpuclass
// suite ..."), which judges sessions started at the suite's beginning when the suite ends: what
// they do is judged over the suite's whole length, so a kill matrix never narrows a run to it.
const WholeRunPrefix = "the whole run of the "

// CallsEntry prefixes the report entries in which the suites record, for each launcher instance
// of a spec, how many times its processes made a class call while a fault or the probe was
// injected (faults.Probe): the name ends with the call, the value is the count. A kill matrix
// reads them to run a fault only where its call came.
const CallsEntry = "classproof.calls "

// SitesEntry prefixes the report entries in which the suites record, for each launcher instance
// of a spec run with SitesEnv on, the variant sites its processes reached, as the launcher wrote
// them (a claim): the name ends with the site, the value is how many processes reached it. A
// kill matrix reads them to run a hand-written variant only where one of its sites was reached.
const SitesEntry = "classproof.sites "

// ReadingEntry prefixes the report entries in which the class matchers record every process they
// judged, on every outcome: the name ends with the reading that decided (ReadingBasePri,
// ReadingPsPri, ReadingEveryField), the value is the oracle's line. A lane that passed on the ps
// pri fallback because proc_pidinfo failed on the runner leaves that trace in its report.
const (
	ReadingEntry      = "classproof.reading "
	ReadingBasePri    = "base pri"
	ReadingPsPri      = "ps pri"
	ReadingEveryField = "every field"
)

// Run is what a run hands its suites.
type Run struct {
	Target     string
	Vars       []string // NAME=VALUE, values with spaces or quotes intact
	Bin        string
	Repo       string
	Kit        string
	Harness    string
	Ledger     string
	LedgerCopy string
	Supervisor string
	Cgroup     string
	Token      string
	Scale      string // as the user wrote it; Scaled reads it
	Sandbox    string // "off" or empty (helpers/base/confine)
	// LauncherUID is the user's choice of a root kit's launcher identity (helpers/base/identity).
	LauncherUID string
	// RunUID is the run's own launcher user, taken by the CLI (helpers/base/identity, ForRun).
	RunUID string
	// LauncherLimits is the user's bounds on a run's launcher processes.
	LauncherLimits string
	// Inject and InjectLog are a fault and its record (helpers/base/faults).
	Inject, InjectLog string
	// Sites says launcher processes record the variant sites they reach (SitesEnv "on").
	Sites bool
}

// Environ is r as NAME=VALUE strings, for a child's environment; empty fields are left out.
func (r Run) Environ() []string {
	var out []string
	add := func(name, v string) {
		if v != "" {
			out = append(out, name+"="+v)
		}
	}
	add(TargetEnv, r.Target)
	add(VarsEnv, EncodeVars(r.Vars))
	add(BinEnv, r.Bin)
	add(RepoEnv, r.Repo)
	add(KitEnv, r.Kit)
	add(HarnessEnv, r.Harness)
	add(LedgerEnv, r.Ledger)
	add(LedgerCopyEnv, r.LedgerCopy)
	add(SupervisorEnv, r.Supervisor)
	add(CgroupEnv, r.Cgroup)
	add(TokenEnv, r.Token)
	add(ScaleEnv, r.Scale)
	add(SandboxEnv, r.Sandbox)
	add(LauncherUIDEnv, r.LauncherUID)
	add(RunUIDEnv, r.RunUID)
	add(LauncherLimitsEnv, r.LauncherLimits)
	add(InjectEnv, r.Inject)
	add(InjectLogEnv, r.InjectLog)
	if r.Sites {
		add(SitesEnv, "on")
	}
	return out
}

// Over is environ with every kit variable replaced by r's: one r leaves unset is unset in the
// result, not inherited.
func (r Run) Over(environ []string) []string {
	var out []string
	for _, kv := range environ {
		if name, _, _ := strings.Cut(kv, "="); !Own(name) {
			out = append(out, kv)
		}
	}
	return append(out, r.Environ()...)
}

// FromEnv decodes this process's environment; an error names the variable and the value.
func FromEnv() (Run, error) {
	r := Current()
	vars, err := DecodeVars(os.Getenv(VarsEnv))
	if err != nil {
		return r, fmt.Errorf("$%s: %w", VarsEnv, err)
	}
	r.Vars = vars
	return r, nil
}

// Current is this process's environment without the vars, which only the suites' setup decodes
// (FromEnv): the fields a lower layer reads never fail to decode.
func Current() Run {
	return Run{
		Target: os.Getenv(TargetEnv), Bin: os.Getenv(BinEnv), Repo: os.Getenv(RepoEnv),
		Kit: os.Getenv(KitEnv), Harness: os.Getenv(HarnessEnv), Ledger: os.Getenv(LedgerEnv),
		LedgerCopy: os.Getenv(LedgerCopyEnv),
		Supervisor: os.Getenv(SupervisorEnv), Cgroup: os.Getenv(CgroupEnv), Token: os.Getenv(TokenEnv), Scale: os.Getenv(ScaleEnv),
		Sandbox: os.Getenv(SandboxEnv), LauncherUID: os.Getenv(LauncherUIDEnv), RunUID: os.Getenv(RunUIDEnv), LauncherLimits: os.Getenv(LauncherLimitsEnv),
		Inject: os.Getenv(InjectEnv), InjectLog: os.Getenv(InjectLogEnv), Sites: os.Getenv(SitesEnv) == "on",
	}
}

// Own says whether name is one of the kit's variables.
func Own(name string) bool { return strings.HasPrefix(name, Prefix) }

// RunnerOnly says whether name is a CI runner's variable that no launcher process may inherit:
// the files GitHub Actions reads back after a step as workflow commands, job summary and
// environment (GITHUB_STEP_SUMMARY, GITHUB_ENV, GITHUB_OUTPUT, GITHUB_PATH, GITHUB_STATE: a
// launcher writing them could forge "classproof gate: PASS" in the summary or set
// CLASSPROOF_CLI for the next step), and the runner's own tokens (ACTIONS_*). A GITHUB_TOKEN a
// workflow exports on purpose (a build that fetches private modules) is left to the launcher.
func RunnerOnly(name string) bool {
	switch name {
	case "GITHUB_STEP_SUMMARY", "GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_STATE":
		return true
	}
	return strings.HasPrefix(name, "ACTIONS_")
}

// EncodeVars and DecodeVars carry NAME=VALUE overrides as a JSON list: a value with spaces or
// quotes means the same on both sides.
func EncodeVars(pairs []string) string {
	if len(pairs) == 0 {
		return ""
	}
	b, _ := json.Marshal(pairs)
	return string(b)
}

// DecodeVars reads what EncodeVars wrote; empty is none.
func DecodeVars(s string) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	var pairs []string
	if err := json.Unmarshal([]byte(s), &pairs); err != nil {
		return nil, fmt.Errorf("%q: expected a JSON list of NAME=VALUE strings: %w", s, err)
	}
	return pairs, nil
}

// Scaled is d times $CLASSPROOF_TIME_SCALE (default 1), the kit's one time setting; an error
// names the variable and the value. lane.Scale refuses a bad value outright; a cleanup, which
// must never stop halfway, takes d unscaled instead (the suites have refused it by then).
func Scaled(d time.Duration) (time.Duration, error) {
	s := Current().Scale
	if s == "" {
		return d, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 {
		return d, fmt.Errorf("%s=%q: expected a positive number, e.g. 1, 2.5", ScaleEnv, s)
	}
	return time.Duration(float64(d) * f), nil
}
