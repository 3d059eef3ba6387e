// Package doctor helps someone write a manifest for a launcher for the first time: it starts the
// launcher once in a temporary home, tries each capability the manifest declares, watches how the
// launcher words and parses things, and prints a checklist: what was found, which conventions it
// seems to keep, which specs the kit will run or leave out and why, and a manifest fragment for
// the conventions it saw. It proves nothing (the suites do); it tells you what to write.
//
// CLI side: it must not import the Ginkgo DSL, Gomega, helpers/suite or fixtures/ (ci/layers.rules).
package doctor

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/classproof/classproof/helpers/base/cgroup"
	"github.com/classproof/classproof/helpers/base/confine"
	"github.com/classproof/classproof/helpers/base/identity"
	"github.com/classproof/classproof/helpers/base/proc"
	"github.com/classproof/classproof/helpers/binaries"
	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/manifest"
	"github.com/classproof/classproof/helpers/oracle"
)

// Options say which launcher to examine.
type Options struct {
	Target  *manifest.Resolved // the launcher, resolved once by the CLI
	Out     io.Writer
	Timeout time.Duration
}

// Report is what the doctor saw; Drivable is false when not even a direct session started.
type Report struct {
	Drivable bool
	lines    []string
	fragment []string
}

func (r *Report) check(ok bool, what, detail string) {
	mark := "yes"
	if !ok {
		mark = "no "
	}
	r.lines = append(r.lines, fmt.Sprintf("  [%s] %s%s", mark, what, suffix(detail)))
}

// suffix is a check's detail, whole: a receipt is never cut. A detail of several lines (a
// launcher's message) continues on lines of its own, indented under the check.
func suffix(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	return ": " + strings.ReplaceAll(s, "\n", "\n        ")
}

// Run examines the launcher and writes the checklist to o.Out. An error means the manifest or
// the launcher could not be used at all.
func Run(ctx context.Context, o Options) (*Report, error) {
	m := o.Target.Manifest
	bin, cleanBin, err := binaries.Launcher(ctx, o.Target, binaries.Where{}, io.Discard)
	defer cleanBin()
	if err != nil {
		return nil, err
	}
	work, err := identity.Launcher().TempDir("classproof-doctor")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	harness, err := binaries.Harness(ctx, o.Target.Kit, work)
	if err != nil {
		return nil, err
	}
	d, err := launcher.Open(m, o.Target.Paths(bin), harness)
	if err != nil {
		return nil, err
	}
	r := &Report{}
	set := proc.NewSet()
	l, err := d.Launch(ctx, set, launcher.LaunchOptions{DaemonEnv: daemonEnv(m)}, io.Discard, o.Timeout)
	if l != nil {
		defer l.Close()
	}
	r.check(err == nil, "the daemon (and agent host) start and say they are ready", errText(err))
	if err == nil {
		examine(r, m, d, l)
	}
	left := set.KillAll(o.Timeout)
	r.check(left == nil, "nothing the launcher started outlives the cleanup; containment: "+cgroup.Contained().String(), errText(left))
	// A write the sandbox refused is named in the failing check above it (the daemon's start, a
	// session), with the manifest key that would allow it.
	sb := confine.Current()
	r.check(sb.On(), "the launcher's processes write only their own folders; sandbox: "+sb.String(),
		"without a sandbox they could write the kit's binaries and the reports; gate --require-sandbox blocks such a run")
	r.print(o.Out, o.Target, d.Meaning)
	return r, nil
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// examine starts a direct session, then tries each capability and convention the feature table
// gives a probe (probes.go).
func examine(r *Report, m *manifest.Manifest, d *launcher.Driver, l *launcher.Instance) {
	s, err := l.StartSession(launcher.Direct, nil)
	r.Drivable = err == nil
	r.check(err == nil, "a direct session starts the harness", sessionDetail(s, err))
	if err == nil {
		checkClass(r, d.Meaning, s)
	}
	tryFeatures(r, m, d, l)
}

func sessionDetail(s *launcher.Session, err error) string {
	if err != nil {
		return err.Error()
	}
	obs, oerr := oracle.Observe(s.Subjects()...)
	if oerr != nil {
		return oerr.Error()
	}
	var parts []string
	for _, o := range obs {
		parts = append(parts, o.String())
	}
	return strings.Join(parts, "; ")
}

// checkClass reads a session's harness and tools as the lane's oracle will, with this process
// as the control, and says what the lane would fail on; a harness in a session of its own whose
// autogroup is left at nice 0 (the autogroup rule) gets the fix spelled out.
func checkClass(r *Report, meaning oracle.Meaning, s *launcher.Session) {
	control, err := oracle.ObserveOne("classproof doctor (the control)", os.Getpid())
	if err != nil {
		r.check(false, "reading the control's class", err.Error())
		return
	}
	obs, err := oracle.Observe(s.Subjects()...)
	if err != nil {
		r.check(false, "reading the "+string(s.Mode)+" session's class", err.Error())
		return
	}
	var why []string
	autogroup := false
	for _, o := range obs {
		if ok, w := oracle.Background(meaning, o, control); !ok {
			why = append(why, fmt.Sprintf("%s pid %d: %s", o.Role, o.Pid, w))
			autogroup = autogroup || strings.Contains(w, "autogroup")
		}
	}
	r.check(len(why) == 0, fmt.Sprintf("the %s harness and its tool are at %s as the lane reads them", s.Mode, meaning), strings.Join(why, "; "))
	if autogroup {
		r.lines = append(r.lines, "        the lane will fail this: the autogroup rule. A harness in a session of its own (setsid) has an autogroup of its own,\n"+
			"        and SCHED_IDLE ranks threads only inside one autogroup: write 19 to /proc/self/autogroup after setsid, before\n"+
			"        exec (docs/manifest.md, \"Linux: the autogroup rule\")")
	}
}

func (r *Report) print(w io.Writer, t *manifest.Resolved, meaning oracle.Meaning) {
	m := t.Manifest
	repo := t.Repo
	if repo == "" {
		repo = "none"
	}
	fmt.Fprintf(w, "classproof doctor: target %s (%s); {repo} is %s\n\nWhat the launcher did:\n%s\n", m.Name, m.Source, repo, strings.Join(r.lines, "\n"))
	lo := m.LeftOut(meaning)
	labels := make([]string, 0, len(lo))
	for k := range lo {
		labels = append(labels, k)
	}
	sort.Strings(labels)
	fmt.Fprintf(w, "\nWhat the kit will leave out for this manifest (every other spec runs):\n")
	if len(labels) == 0 {
		fmt.Fprintln(w, "  nothing")
	}
	for _, k := range labels {
		fmt.Fprintf(w, "  %s: %s\n", k, lo[k])
	}
	if len(r.fragment) > 0 {
		fmt.Fprintf(w, "\nConventions it seems to keep (check them, then add what holds to the manifest):\nconventions:\n")
		for _, f := range r.fragment {
			fmt.Fprintf(w, "  %s\n", f)
		}
	}
	if r.Drivable {
		fmt.Fprintln(w, "\nclassproof doctor: the launcher can be driven; run the suites with: classproof run --target", m.Source)
	} else {
		fmt.Fprintln(w, "\nclassproof doctor: the launcher could not be driven (no direct session started); fix the first [no] above")
	}
}
