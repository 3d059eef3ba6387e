// Package suite wires a Ginkgo suite to its target: it loads and checks the manifest once, builds
// the fixture harness and the launcher once (on Ginkgo's first process), and gives each spec a
// fresh launcher instance and a control process, both killed in DeferCleanup.
//
// It is the only package with the Ginkgo DSL and Gomega: suites import it; cmd/ and the CLI-side
// helpers (runner, report, gate, redgreen, mutants, bench, doctor) never do (ci/layers.rules).
package suite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
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
	"github.com/classproof/classproof/helpers/oracle"
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

// Launch starts a fresh instance of the target for the running spec. Everything it and its
// sessions start is killed in DeferCleanup, also when the spec fails, times out or is
// interrupted.
func (e *Env) Launch(opts launcher.LaunchOptions) *launcher.Instance {
	t := time.Now()
	l, err := e.launch(opts)
	timed("launch", t)
	Must(err, "starting the target's daemon and host")
	return l
}

// launch starts the target with everything it starts killed, and its folder removed, in
// DeferCleanup, after which the kit checks its own class.
func (e *Env) launch(opts launcher.LaunchOptions) (*launcher.Instance, error) {
	set := proc.NewSet()
	var l *launcher.Instance
	DeferCleanup(func() {
		defer timed("cleanup", time.Now())
		var changed string
		if l != nil {
			changed = failChanges(watch.changes(l.Started()), "processes of this spec's launcher")
			// A last look before the kill: a harness the launcher started after the spec's own
			// look (one that took its time to exec) is judged too, not killed unseen.
			if err := l.Account(); err != nil {
				changed = strings.TrimPrefix(changed+"\n", "\n") + "a last look before the cleanup: " + err.Error()
			}
		}
		err := set.KillAll(e.Timeout)
		if l != nil {
			recordCalls(l)
			l.Close()
		}
		if changed != "" && err != nil {
			Fail(changed + "\ncleanup: " + err.Error())
		}
		Must(err, "cleanup")
		if changed != "" {
			Fail(changed)
		}
		checkOwn("after the cleanup of spec " + CurrentSpecReport().FullText())
	})
	// The instance lives as long as the spec: its context ends in the cleanup, with its processes.
	ctx, cancel := context.WithCancel(context.Background())
	DeferCleanup(cancel)
	l, err := e.Driver.Launch(ctx, set, opts, GinkgoWriter, e.Timeout)
	live.add(l)
	return l, err
}

// recordCalls puts in the spec's report the class calls l's processes made, where the run counts
// them (contract.CallsEntry), and the variant sites they recorded (contract.SitesEntry): after
// the kill, so a call made late is in.
func recordCalls(l *launcher.Instance) {
	for call, n := range l.ClassCalls() {
		AddReportEntry(contract.CallsEntry+call, n, ReportEntryVisibilityNever)
	}
	sites, err := l.Sites()
	if err != nil {
		fmt.Fprintf(GinkgoWriter, "classproof: %v\n", err)
	}
	for site, n := range sites {
		AddReportEntry(contract.SitesEntry+site, n, ReportEntryVisibilityNever)
	}
}

// ExpectLaunchRefused starts the target as Launch does and checks that its daemon refused to
// start: it exited before it was ready, with a non-zero code and a message that mentions each of
// the given strings (a convention spec passes some; see ExpectRefused).
func (e *Env) ExpectLaunchRefused(opts launcher.LaunchOptions, mention ...string) {
	GinkgoHelper()
	_, err := e.launch(opts)
	var exited *launcher.ExitedError
	if !errors.As(err, &exited) || exited.Role != "daemon" {
		Fail(fmt.Sprintf("expected the daemon to refuse to start and exit, got: %v", err))
	}
	Expect(exited.Code).NotTo(BeZero(), "a refusal to start exits non-zero: %s", exited)
	Expect(strings.TrimSpace(exited.Output)).NotTo(BeEmpty(), "a refusal to start says why: the daemon (pid %d) exited %d and printed nothing", exited.Pid, exited.Code)
	for _, m := range mention {
		Expect(exited.Output).To(ContainSubstring(m), "the daemon's refusal to start names %q", m)
	}
}

// Session starts a session and fails the spec with the launcher's words if it is refused.
func (e *Env) Session(l *launcher.Instance, mode launcher.Mode, profileEnv map[string]string) *launcher.Session {
	t := time.Now()
	s, err := l.StartSession(mode, profileEnv)
	timed("session", t)
	Must(err, "starting a "+string(mode)+" session")
	return s
}

// Control starts a sleep of the kit's own, in its own group, and reads its class: what a process
// nobody reniced gets on this machine. Every "normal" in the suites is relative to it.
func (e *Env) Control() oracle.Observation {
	defer timed("control", time.Now())
	cmd := exec.Command("sleep", "86400")
	set := proc.NewSet()
	// In the run's cgroup, as the launcher's processes are: one the sweep may kill if this
	// process dies first. A cgroup with no controller changes nothing of its class.
	Must(set.Contain(cmd), "containing the control")
	Expect(cmd.Start()).To(Succeed())
	set.TrackOwned("control sleep", cmd.Process.Pid)
	go func() { _ = cmd.Wait() }()
	DeferCleanup(func() {
		defer timed("cleanup", time.Now())
		Expect(set.KillAll(e.Timeout)).To(Succeed())
	})
	o, err := oracle.ObserveOne("control sleep", cmd.Process.Pid)
	Must(err, "observing the control sleep with ps")
	ok, _ := oracle.Background(e.Platform.Meaning, o, o)
	if e.Platform.Meaning != oracle.Ignored && ok {
		Fail(fmt.Sprintf("the kit itself runs at background (%s): a control at background proves nothing; run the kit at normal class", o))
	}
	return o
}

// Observe reads the subjects with the oracle, failing the spec if any is gone, or if a launcher
// of the spec runs a harness the kit handed out no session for (launcher.Instance.Account).
func Observe(subjects ...oracle.Subject) []oracle.Observation {
	GinkgoHelper()
	defer timed("observe", time.Now())
	if err := live.account(); err != nil {
		Fail(err.Error())
	}
	obs, err := oracle.Observe(subjects...)
	Must(err, "observing with ps")
	return obs
}

// RequirePlatform skips the running spec, with its reason, when it is meant for another
// platform. A lane that selects by label never gets here; a run without a filter sees every such
// skip counted and named (the gate refuses runtime skips where a lane allows none).
func RequirePlatform(want, have lane.Platform) {
	if want.Label != have.Label {
		Skip(fmt.Sprintf("needs %s (%s); this run is %s/%s with the target's background %q (%s). Select a lane with --label-filter.",
			want.Label, want.Title, runtime.GOOS, runtime.GOARCH, have.Meaning, have.Label))
	}
}

// Must fails the spec with the error's own words: the launcher's and the oracle's messages are
// the receipt, and Gomega's dump of an error value would bury them.
func Must(err error, doing ...string) {
	GinkgoHelper()
	if err != nil {
		Fail(strings.Join(append(doing, err.Error()), ": "))
	}
}

// ExpectDescends checks the process tree in the kernel's process table (proctable.Descends: /proc on
// Linux, sysctl kern.proc on macOS), by pid and parent pid, never by name: the harness must descend
// from the launcher process that is meant to have started it.
func ExpectDescends(s *launcher.Session) {
	role, pid := s.LauncherPid()
	ok, chain, err := proctable.Descends(s.Report.HarnessPid, pid)
	Must(err, "reading the process tree")
	Expect(ok).To(BeTrue(), fmt.Sprintf("%s harness pid %d does not descend from the %s pid %d; its ancestry is %v",
		s.Mode, s.Report.HarnessPid, role, pid, chain))
	for _, t := range s.Tools() {
		pp, err := proctable.ParentOf(t.Pid)
		Must(err, "reading the parent of "+t.Role)
		Expect(pp).To(Equal(s.Report.HarnessPid), fmt.Sprintf("%s pid %d: parent is %d, not the harness", t.Role, t.Pid, pp))
	}
}

// timed records how long a phase of the running spec took, for the CLI's breakdown of where a
// run's time goes (report entries named contract.PhaseEntry+name, never printed).
func timed(name string, since time.Time) {
	AddReportEntry(contract.PhaseEntry+name, time.Since(since), ReportEntryVisibilityNever)
}

// MaxLauncherFile bounds what a spec reads of a file the launcher wrote (its config file).
const MaxLauncherFile = 1 << 20

// ReadLauncherFile reads a file the launcher wrote, as a claim and as the launcher's user: a
// regular file reached by no symlink, at most MaxLauncherFile bytes (identity.Identity.ReadClaim),
// so a config file below a folder swapped for a symlink, or a config file that is a FIFO or a
// link to /dev/zero fails the spec with its name instead of hanging or exhausting the kit.
func ReadLauncherFile(path string) ([]byte, error) {
	return identity.Launcher().ReadClaim(path, MaxLauncherFile)
}
