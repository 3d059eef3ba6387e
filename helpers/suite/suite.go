// Package suite wires a Ginkgo suite to its target: it loads and checks the manifest once, builds
// the fixture harness and the launcher once (on Ginkgo's first process), and gives each spec a
// fresh launcher instance and a control process, both killed in DeferCleanup.
//
// It is the only package with the Ginkgo DSL and Gomega: suites import it; cmd/ and the CLI-side
// helpers (runner, report, gate, redgreen, mutants, bench, doctor) never do (ci/layers.rules).
package suite

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/classproof/classproof/helpers/base/cgroup"
	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/identity"
	"github.com/classproof/classproof/helpers/base/limits"
	"github.com/classproof/classproof/helpers/base/proc"
	"github.com/classproof/classproof/helpers/base/proctable"
	"github.com/classproof/classproof/helpers/binaries"
	"github.com/classproof/classproof/helpers/lane"
	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/manifest"
)

// Env is what a suite's specs use.
type Env struct {
	// Target is resolved (manifest.Resolve, as the CLI does) when the suite's tree is built, so
	// that tables can have an entry per item the manifest lists; its error, if any, fails the
	// suite once in BeforeSuite. Manifest is Target's.
	Target   *manifest.Resolved
	Manifest *manifest.Manifest
	Driver   *launcher.Driver
	Platform lane.Platform
	// Timeout bounds one launcher action (start, session, report); scaled by lane.Scale.
	Timeout    time.Duration
	ownLedger  string
	cleanBin   func() // removes a bin folder this suite made (not one handed in with CLASSPROOF_BIN)
	ownHarness string // the folder of a harness this suite built (not one handed in by the CLI)
	loadErr    error  // the manifest's, from Setup: it fails BeforeSuite, once
	// suiteDescription is RunSpecs's description, which Ginkgo puts before a spec's text when it
	// matches a focus (longSelected).
	suiteDescription string
	long             *runLong // the sessions started at the suite's beginning (wholerun.go)
	// wholeRunTitle is the whole-run spec's container text, for matching a run's focus.
	wholeRunTitle string
}

// shared is what the first process hands every other: the folders it built into.
type shared struct {
	BinDir  string `json:"bin_dir"`
	Harness string `json:"harness"`
}

// Setup registers the suite-level nodes. Call it at the top level of the suite's test file.
// defaults holds the embedded manifests and defaultName the one used when $CLASSPROOF_TARGET is
// unset.
func Setup(defaults fs.FS, defaultName string) *Env {
	env := &Env{Timeout: lane.Scale(10 * time.Second), cleanBin: func() {}}
	// Resolved once per process, here: buildOnce and openEach use what this read.
	env.Target, env.loadErr = resolve(manifest.Catalog{FS: defaults, Default: defaultName})
	if env.Target != nil {
		env.Manifest = env.Target.Manifest
	}
	// On Ginkgo's first process, before any BeforeSuite: the description longSelected matches with.
	ReportBeforeSuite(func(r Report) { env.suiteDescription = r.SuiteDescription })
	SynchronizedBeforeSuite(env.buildOnce, env.openEach)
	SynchronizedAfterSuite(env.sweepEach, env.cleanOnce)
	_, file, _, _ := runtime.Caller(1)
	env.wholeRun(filepath.Base(filepath.Dir(file)))
	return env
}

// buildOnce runs on Ginkgo's first process: it builds the fixture harness and, unless the CLI
// built it already, the launcher, and hands the paths to every process.
func (env *Env) buildOnce(ctx SpecContext) []byte {
	Must(env.loadErr, "the target manifest is not usable; no spec can run")
	var sh shared
	var err error
	if sh.Harness = contract.Current().Harness; sh.Harness == "" {
		// Run by ginkgo or go test directly, without the CLI that builds it once per run.
		env.ownHarness, err = identity.Launcher().TempDir("classproof-harness")
		Must(err, "making a folder for the fixture harness")
		sh.Harness, err = binaries.Harness(ctx, env.Target.Kit, env.ownHarness)
		Must(err, "building the fixture harness")
	}
	if sh.BinDir = contract.Current().Bin; sh.BinDir == "" {
		// Run without the CLI: the launcher is made ready the one way the CLI does it.
		sh.BinDir, env.cleanBin, err = binaries.Launcher(ctx, env.Target, binaries.Where{}, GinkgoWriter)
		Must(err, "making the target ready (its build step, then its binaries)")
	}
	b, _ := json.Marshal(sh)
	return b
}

// openEach runs on every process: it opens the driver, becomes the subreaper of what the specs
// start, keeps a leak ledger when no CLI gave one, and watches the CLI that supervises the run.
func (env *Env) openEach(b []byte) {
	// If the CLI that runs us dies (kill -9), interrupt ourselves: Ginkgo then runs every
	// DeferCleanup, which kills what the specs started, and the run ends instead of going on
	// unsupervised.
	proctable.Watch(contract.Current().Supervisor, 200*time.Millisecond, func() {
		fmt.Fprintln(os.Stderr, "classproof: the supervising classproof process is gone; interrupting this suite")
		_ = syscall.Kill(os.Getpid(), syscall.SIGINT)
	})
	var sh shared
	Expect(json.Unmarshal(b, &sh)).To(Succeed())
	Must(env.loadErr, "the target manifest")
	var err error
	env.Driver, err = launcher.Open(env.Manifest, env.Target.Paths(sh.BinDir), sh.Harness)
	Must(err, "the target")
	env.Platform, err = lane.Current(env.Driver.Meaning)
	Must(err, "this OS's lane")
	Expect(proc.BecomeSubreaper()).To(Succeed())
	watch.start()
	Must(limits.Bound(identity.Launcher()), "bounding the launcher's processes")
	readOwnStart()
	if proc.RunToken() == "" {
		// Run without the CLI: a token for this process's launchers, harnesses and tools.
		os.Setenv(contract.TokenEnv, proc.NewRunToken())
	}
	if contract.Current().Ledger == "" {
		// Without the CLI there is no run-wide ledger: keep one for this process and sweep it
		// after the suite, so a leak fails the suite instead of going unseen.
		f, err := os.CreateTemp("", "classproof-ledger")
		Must(err, "making the leak ledger")
		f.Close()
		env.ownLedger = f.Name()
		Must(identity.Launcher().Give(env.ownLedger), "handing the leak ledger to the launcher's user")
		os.Setenv(contract.LedgerEnv, env.ownLedger)
	}
	env.startLong()
}

// sweepEach runs on every process after its specs: a leak fails the suite. Every sweep runs
// before the suite fails, so that one leak found does not leave another to outlive it.
func (env *Env) sweepEach() {
	changed, longErr := env.endLong()
	checkOwn("at the end of the suite")
	var leaks []string
	left, err := cgroup.CloseContained(proc.Reap) // a cgroup this process made, run without the CLI
	Must(err, "closing this process's cgroup")
	if len(left) > 0 {
		leaks = append(leaks, "processes still in this process's cgroup after the suite (now killed):\n  "+strings.Join(left, "\n  "))
	}
	orphans, err := proc.KillOrphans()
	Must(err, "the leak scan below this process")
	if len(orphans) > 0 {
		leaks = append(leaks, "processes still below this suite process after the suite, each a LEAK (a launcher's double fork handed to the kit as subreaper; now killed):\n  "+strings.Join(orphans, "\n  "))
	}
	if env.ownLedger != "" {
		ledger, refused, err := proc.Sweep(env.ownLedger, proc.RunToken(), cgroup.Contained().Cgroup, identity.Launcher().Uid)
		os.Remove(env.ownLedger)
		Must(err, "sweeping the leak ledger")
		if len(ledger) > 0 {
			leaks = append(leaks, "processes a spec started were still alive after the suite (now killed):\n  "+strings.Join(ledger, "\n  "))
		}
		if len(refused) > 0 {
			leaks = append(leaks, "ledger lines naming processes not of this run (left alone):\n  "+strings.Join(refused, "\n  "))
		}
	}
	var problems []string
	if len(leaks) > 0 {
		problems = append(problems, "leak scan: "+strings.Join(leaks, "\nleak scan: "))
	}
	if c := failChanges(changed, "the sessions started at the suite's beginning"); c != "" {
		problems = append(problems, c)
	}
	if longErr != nil {
		problems = append(problems, longErr.Error())
	}
	if len(problems) > 0 {
		Fail(strings.Join(problems, "\n"))
	}
}

// cleanOnce runs on the first process after all: the built harness, and a bin folder it made.
func (env *Env) cleanOnce() {
	if env.ownHarness != "" {
		os.RemoveAll(env.ownHarness)
	}
	env.cleanBin()
}

// resolve is this process's target, as the CLI resolved it: the manifest and vars the run
// contract names, through manifest.Resolve.
func resolve(c manifest.Catalog) (*manifest.Resolved, error) {
	run, err := contract.FromEnv()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", contract.VarsEnv, err)
	}
	kit, err := binaries.KitDir()
	if err != nil {
		return nil, err
	}
	t, err := manifest.Resolve(c, run.Target, run.Vars, kit, run.Repo)
	if err != nil {
		return nil, fmt.Errorf("the run's target (%s %q, %s %q): %w", contract.TargetEnv, run.Target, contract.VarsEnv, strings.Join(run.Vars, " "), err)
	}
	return t, nil
}
