package resolve_test

import (
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/classproof/classproof/helpers/base/label"
	"github.com/classproof/classproof/helpers/lane"
	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/oracle"
	"github.com/classproof/classproof/helpers/suite"
)

// A launcher may decide a hosted session's class on another code path than a direct one's (the
// spawn spec's cpu_class is built there), so each source of the order, each reference rule and
// the opt-out is checked on both paths: a path that drops or reorders a source goes red on that
// path's row. One row per source and per pair that a reorder swaps, not the whole 27-row table.

// sourceRow sets the class at some sources; ref names a profile value that is a reference to
// CP_REF, which the daemon's env sets to the row's refValue.
type sourceRow struct {
	title                   string
	profile, daemon, config string
	refValue                string
	want, from              string
}

var sourceRows = []sourceRow{
	{title: "the profile's env says normal (the opt-out)", profile: "normal", want: "normal", from: fromProfile},
	{title: "the daemon's env says normal", daemon: "normal", want: "normal", from: fromDaemon},
	{title: "the config key says normal", config: "normal", want: "normal", from: fromConfig},
	{title: "no source sets it", want: "background", from: fromDefault},
	{title: "the profile's env says background over the daemon's normal", profile: "background", daemon: "normal", want: "background", from: fromProfile},
	{title: "the daemon's env says background over the config's normal", daemon: "background", config: "normal", want: "background", from: fromDaemon},
	{title: "the profile's reference resolves to normal", profile: "{ref}", refValue: "normal", want: "normal", from: fromProfile},
	{title: "the profile's reference resolves to background over the config's normal", profile: "{ref}", refValue: "background", config: "normal", want: "background", from: fromProfile},
}

// needs labels a row for what it uses of the target beyond a session on its path.
func (r sourceRow) needs(mode launcher.Mode) Labels {
	l := suite.ForMode(mode)
	if r.config != "" {
		l = append(l, label.NeedsConfig)
	}
	if r.refValue != "" {
		l = append(l, label.NeedsEnvRef)
	}
	return l
}

// launch starts the launcher with the row's daemon env and config, and gives the profile env.
func (r sourceRow) launch() (*launcher.Instance, map[string]string) {
	GinkgoHelper()
	m := env.Driver.Manifest
	daemonEnv := map[string]string{}
	if r.daemon != "" {
		daemonEnv[m.ClassEnv] = r.daemon
	}
	if r.refValue != "" {
		daemonEnv["CP_REF"] = r.refValue
	}
	l := env.Launch(launcher.LaunchOptions{DaemonEnv: daemonEnv})
	if r.config != "" {
		_, err := l.ConfigSet(m.Config.Key, r.config)
		suite.Must(err, "config --set")
	}
	profileEnv := map[string]string{}
	switch r.profile {
	case "":
	case "{ref}":
		profileEnv[m.ClassEnv] = m.DaemonEnvRef("CP_REF")
	default:
		profileEnv[m.ClassEnv] = r.profile
	}
	return l, profileEnv
}

var _ = Describe("resolve: every source on every path", Label(label.ResolveArea, label.DirectArea, label.HostedArea, label.SeedFirstSource), func() {
	modes := []launcher.Mode{launcher.Direct, launcher.Hosted}
	// Observed through the class, so only where the class takes effect: where the target ignores
	// it (linux-ignore), compat's rows keep every path at the control's class instead.
	for _, p := range lane.Platforms {
		if p.Meaning == oracle.Ignored {
			continue
		}
		Describe(p.Title, Label(p.Label), func() {
			var control oracle.Observation
			BeforeEach(func() {
				suite.RequirePlatform(p, env.Platform)
				control = env.Control()
			})
			var rows []TableEntry
			for _, r := range sourceRows {
				for _, mode := range modes {
					rows = append(rows, Entry(fmt.Sprintf("%s session, %s: %s from the %s", mode, r.title, r.want, r.from), r.needs(mode), r, mode))
				}
			}
			DescribeTable("starts the harness at the class the first source sets", func(r sourceRow, mode launcher.Mode) {
				l, profileEnv := r.launch()
				s := env.Session(l, mode, profileEnv)
				obs := suite.Observe(s.Subjects()...)
				if r.want == "background" {
					Expect(obs).To(suite.BeAtBackground(p.Meaning, control), "%s: background from the %s", r.title, r.from)
				} else {
					Expect(obs).To(suite.HaveControlClass(control), "%s: normal from the %s", r.title, r.from)
				}
			}, rows)
		})
	}

	// The reference rules refuse on either path, whether or not the class takes effect here.
	refusals := []struct{ title, daemonRef, value string }{
		{"a reference to an unset variable", "", "{ref:CP_NOT_SET}"},
		{"a reference whose variable holds another reference (expanded once)", "{ref:CP_INNER}", "{ref:CP_REF}"},
		{"a reference whose variable holds a command substitution (no shell)", "$(echo normal)", "{ref:CP_REF}"},
		{"a reference that resolves to an invalid value", "turbo", "{ref:CP_REF}"},
	}
	if m := env.Manifest; m != nil && m.EnvRef != nil && len(m.EnvRef.Malformed) > 0 {
		malformed := strings.ReplaceAll(m.EnvRef.Malformed[0], "{name}", "CP_REF")
		refusals = append(refusals, struct{ title, daemonRef, value string }{"a malformed reference " + malformed, "normal", malformed})
	}
	var refused []TableEntry
	for _, r := range refusals {
		for _, mode := range modes {
			refused = append(refused, Entry(fmt.Sprintf("%s session, %s", mode, r.title), append(suite.ForMode(mode), label.NeedsEnvRef, label.RefusesClass), r.daemonRef, r.value, mode))
		}
	}
	DescribeTable("refuses a session whose profile's env holds", func(daemonRef, value string, mode launcher.Mode) {
		m := env.Driver.Manifest
		daemonEnv := map[string]string{"CP_INNER": "normal"}
		if daemonRef != "" {
			daemonEnv["CP_REF"] = refText(daemonRef)
		}
		l := env.Launch(launcher.LaunchOptions{DaemonEnv: daemonEnv})
		_, err := l.StartSession(mode, map[string]string{m.ClassEnv: refText(value)})
		suite.ExpectRefused(l, fmt.Sprintf("a %s session with the profile's env %q, the daemon's env %q", mode, refText(value), daemonEnv), err)
	}, refused)
})

// refText writes "{ref:NAME}" in the target's own reference syntax; other text is as it is.
func refText(v string) string {
	if rest, ok := strings.CutPrefix(v, "{ref:"); ok {
		if name, ok := strings.CutSuffix(rest, "}"); ok {
			return env.Driver.Manifest.DaemonEnvRef(name)
		}
	}
	return v
}
