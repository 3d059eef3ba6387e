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
	"github.com/classproof/classproof/helpers/base/proc"
	"github.com/classproof/classproof/helpers/base/sandbox"
	"github.com/classproof/classproof/helpers/binaries"
	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/oracle"
)

// Options say which launcher to examine.
type Options struct {
	Target  *launcher.Resolved // the launcher, resolved once by the CLI
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
	work, err := sandbox.LauncherIdentity().TempDir("classproof-doctor")
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
	l, err := d.Launch(ctx, set, launcher.LaunchOptions{}, io.Discard, o.Timeout)
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
	sb := sandbox.Current()
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

// examine tries each capability, then the conventions.
func examine(r *Report, m *launcher.Manifest, d *launcher.Driver, l *launcher.Instance) {
	s, err := l.StartSession(launcher.Direct, nil)
	r.Drivable = err == nil
	r.check(err == nil, "a direct session starts the harness", sessionDetail(s, err))
	if err == nil {
		checkClass(r, d.Meaning, s)
	}
	if len(m.Session.Hosted) > 0 {
		s, err := l.StartSession(launcher.Hosted, nil)
		r.check(err == nil, "a hosted session starts the harness", sessionDetail(s, err))
		if err == nil {
			checkClass(r, d.Meaning, s)
		}
	} else {
		r.check(false, "hosted sessions (session.hosted)", "not declared: the hosted specs are left out")
	}
	if m.Explain != nil {
		x, err := l.Explain(nil)
		r.check(err == nil && x.Class != "", "explain prints a class and its source", x.Output+errText(err))
	} else {
		r.check(false, "explain", "not declared: the resolve order is read through the class alone")
	}
	if m.Config != nil {
		examineConfig(r, m, l)
	} else {
		r.check(false, "config commands", "not declared: the config specs and config rows are left out")
	}
	if !r.Drivable {
		return
	}
	examineConventions(r, m, l)
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

func examineConfig(r *Report, m *launcher.Manifest, l *launcher.Instance) {
	c := m.Config
	_, err := l.ConfigSet(c.Key, "normal")
	got, gerr := l.ConfigGet(c.Key)
	r.check(err == nil && gerr == nil && got == "normal", "config --set then --get round-trips the class", fmt.Sprintf("--get said %q %s %s", got, errText(err), errText(gerr)))
	_, err = l.ConfigUnset(c.Key)
	r.check(err == nil, "config --unset", errText(err))
	out, gerr := l.ConfigGet(c.Key)
	switch {
	case gerr != nil:
		r.check(true, "config --get on an unset key fails", "")
		r.fragment = append(r.fragment, "config_get_unset: error")
	case out == "":
		r.check(true, "config --get on an unset key prints nothing and exits 0", "")
		r.fragment = append(r.fragment, "config_get_unset: empty")
	default:
		r.check(false, "config --get on an unset key fails or prints nothing", fmt.Sprintf("it printed %q", out))
	}
}

// A refusal the doctor tries, and what each kind of naming would find in its message.
type tried struct {
	what    string
	value   string            // the profile env's class value
	names   map[string]string // kind (launcher.Mention*) -> the text a message naming it holds
	refusal *launcher.SessionError
}

// examineConventions watches how the launcher refuses and parses values. It claims a refusal
// names a kind only when every refusal it tried named it: the lane checks the same kinds on
// each refusal it makes (an unknown value, and with env references an unset one).
func examineConventions(r *Report, m *launcher.Manifest, l *launcher.Instance) {
	tries := []*tried{{what: "an unknown class value (turbo)", value: "turbo",
		names: map[string]string{launcher.MentionKey: m.ClassEnv, launcher.MentionValue: "turbo", launcher.MentionAccepted: "normal"}}}
	if m.EnvRef != nil {
		ref := m.DaemonEnvRef("CP_DOCTOR_UNSET")
		tries = append(tries, &tried{what: "a reference to an unset variable (" + ref + ")", value: ref,
			names: map[string]string{launcher.MentionKey: m.ClassEnv, launcher.MentionValue: ref}})
	}
	for _, t := range tries {
		_, err := l.StartSession(launcher.Direct, map[string]string{m.ClassEnv: t.value})
		se, refused := err.(*launcher.SessionError)
		detail := errText(err)
		if refused {
			detail, t.refusal = "it said "+strings.TrimSpace(se.Output), se
		}
		r.check(refused, t.what+" is refused", detail)
	}
	var names []string
	for _, kind := range []string{launcher.MentionProfile, launcher.MentionKey, launcher.MentionValue, launcher.MentionAccepted} {
		var in, missed []string
		for _, t := range tries {
			text, asked := t.names[kind]
			if kind == launcher.MentionProfile && t.refusal != nil {
				text, asked = t.refusal.Profile, true
			}
			if !asked {
				continue
			}
			in = append(in, t.value)
			held := t.refusal != nil && strings.Contains(t.refusal.Output, text)
			if kind == launcher.MentionAccepted && held {
				held = strings.Contains(t.refusal.Output, "background")
			}
			if !held {
				missed = append(missed, t.value)
			}
		}
		r.check(len(missed) == 0, fmt.Sprintf("refusals name the %s (tried: %s)", kind, strings.Join(in, ", ")), notIn(missed))
		if len(missed) == 0 {
			names = append(names, kind)
		}
	}
	if len(names) > 0 {
		r.fragment = append(r.fragment, "refusals_name: ["+strings.Join(names, ", ")+"]   # add source (with refusal_sources) and file if they hold too")
	}
	for _, c := range []struct{ value, what, conv string }{
		{"  NoRmAl ", "values in any case with surrounding spaces are taken", "fold_case: true"},
		{"", "an empty value counts as unset", "empty_is_unset: true"},
	} {
		_, err := l.StartSession(launcher.Direct, map[string]string{m.ClassEnv: c.value})
		r.check(err == nil, c.what, errText(err))
		if err == nil {
			r.fragment = append(r.fragment, c.conv)
		}
	}
}

func (r *Report) print(w io.Writer, t *launcher.Resolved, meaning oracle.Meaning) {
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

// notIn names the refusals that did not name a kind: "" when all did.
func notIn(missed []string) string {
	if len(missed) == 0 {
		return ""
	}
	return "not in the refusal of " + strings.Join(missed, ", ")
}
