package doctor

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/manifest"
)

// A refusal the doctor tries, and what each kind of naming would find in its message.
type tried struct {
	what    string
	value   string            // the profile env's class value
	names   map[string]string // kind (manifest.Mention*) -> the text a message naming it holds
	refusal *launcher.SessionError
}

// probeRefusals says which kinds every refusal named, as a fragment to declare.
func probeRefusals(r *Report, m *manifest.Manifest, _ *launcher.Driver, l *launcher.Instance, _ bool) {
	names := examineRefusals(r, m, l)
	if len(names) > 0 {
		r.fragment = append(r.fragment, "refusals_name: ["+strings.Join(names, ", ")+"]   # add source (with refusal_sources) and file if they hold too")
	}
}

// probeFoldCase tries a value in another case with spaces around it.
func probeFoldCase(r *Report, m *manifest.Manifest, _ *launcher.Driver, l *launcher.Instance, _ bool) {
	_, err := l.StartSession(launcher.Direct, map[string]string{m.ClassEnv: "  NoRmAl "})
	r.check(err == nil, "values in any case with surrounding spaces are taken", errText(err))
	if err == nil {
		r.fragment = append(r.fragment, "fold_case: true")
	}
}

// examineRefusals tries the refusals and returns the kinds every one of them named. It claims a
// refusal names a kind only when every refusal it tried named it: the lane checks the same kinds
// on each refusal it makes (an unknown value, and with env references an unset one).
func examineRefusals(r *Report, m *manifest.Manifest, l *launcher.Instance) (names []string) {
	tries := []*tried{{what: "an unknown class value (turbo)", value: "turbo",
		names: map[string]string{manifest.MentionKey: m.ClassEnv, manifest.MentionValue: "turbo", manifest.MentionAccepted: "normal"}}}
	if m.EnvRef != nil {
		ref := m.DaemonEnvRef("CP_DOCTOR_UNSET")
		tries = append(tries, &tried{what: "a reference to an unset variable (" + ref + ")", value: ref,
			names: map[string]string{manifest.MentionKey: m.ClassEnv, manifest.MentionValue: ref}})
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
	for _, kind := range []string{manifest.MentionProfile, manifest.MentionKey, manifest.MentionValue, manifest.MentionAccepted} {
		var in, missed []string
		for _, t := range tries {
			text, asked := t.names[kind]
			if kind == manifest.MentionProfile && t.refusal != nil {
				text, asked = t.refusal.Profile, true
			}
			if !asked {
				continue
			}
			in = append(in, t.value)
			held := t.refusal != nil && strings.Contains(t.refusal.Output, text)
			if kind == manifest.MentionAccepted && held {
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
	return names
}

// notIn names the refusals that did not name a kind: "" when all did.
func notIn(missed []string) string {
	if len(missed) == 0 {
		return ""
	}
	return "not in the refusal of " + strings.Join(missed, ", ")
}

// emptyVar is a variable the doctor's daemon holds empty: the reference probe's.
const emptyVar = "CP_DOCTOR_EMPTY"

// daemonEnv is the env the doctor's daemon starts with: where env references are declared,
// emptyVar set and empty.
func daemonEnv(m *manifest.Manifest) map[string]string {
	if m.EnvRef == nil {
		return nil
	}
	return map[string]string{emptyVar: ""}
}

// probeEmpty tries what conventions.empty_is_unset has the run judge: an empty profile value
// and, with env references, a reference to a daemon variable that holds "" (an empty reference
// result), each taken as unset so that the next source decides. The fragment suggests the
// convention only when every case holds; where it is declared, a case that fails is one the
// run will fail.
func probeEmpty(r *Report, m *manifest.Manifest, _ *launcher.Driver, l *launcher.Instance, _ bool) {
	cases := [][2]string{{"an empty value counts as unset", ""}}
	if m.EnvRef != nil {
		ref := m.DaemonEnvRef(emptyVar)
		cases = append(cases, [2]string{fmt.Sprintf("an empty reference result counts as unset (%s, the daemon's %s is \"\")", ref, emptyVar), ref})
	}
	all := true
	for _, c := range cases {
		err := takenAsUnset(m, l, c[1])
		detail := errText(err)
		if err != nil {
			detail += declared(m.Conventions.EmptyIsUnset, "empty_is_unset: true")
		}
		r.check(err == nil, c[0], detail)
		all = all && err == nil
	}
	if all {
		r.fragment = append(r.fragment, "empty_is_unset: true")
	}
}

// takenAsUnset starts a direct session with value as the profile's class; where explain is
// declared it must not name the profile as the source that decided.
func takenAsUnset(m *manifest.Manifest, l *launcher.Instance, value string) error {
	env := map[string]string{m.ClassEnv: value}
	if _, err := l.StartSession(launcher.Direct, env); err != nil {
		if se, ok := err.(*launcher.SessionError); ok {
			return fmt.Errorf("refused: it said %s", strings.TrimSpace(se.Output))
		}
		return err
	}
	if m.Explain == nil {
		return nil
	}
	x, err := l.Explain(env)
	if err != nil {
		return fmt.Errorf("the session started; explain failed: %w", err)
	}
	if re, perr := regexp.Compile(m.Explain.Sources["profile"]); perr == nil && m.Explain.Sources["profile"] != "" && re.MatchString(x.Source) {
		return fmt.Errorf("the session started, but explain says the profile decided: %s", strings.TrimSpace(x.Output))
	}
	return nil
}

// declared is what a failed probe adds where the manifest declares what it tried: the run will
// judge it, and fail.
func declared(is bool, conv string) string {
	if !is {
		return ""
	}
	return "\nthe manifest declares conventions." + conv + ": the run judges this, and fails on it"
}
