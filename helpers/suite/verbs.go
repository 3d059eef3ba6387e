package suite

import (
	"context"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/identity"
	"github.com/classproof/classproof/helpers/base/proc"
	"github.com/classproof/classproof/helpers/base/proctable"
	"github.com/classproof/classproof/helpers/lane"
	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/oracle"
)

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
