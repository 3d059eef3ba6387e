package resolve_test

import (
	"encoding/json"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/classproof/classproof/helpers/base/label"
	"github.com/classproof/classproof/helpers/lane"
	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/manifest"
	"github.com/classproof/classproof/helpers/oracle"
	"github.com/classproof/classproof/helpers/suite"
)

// The seed accepts normal or background and nothing else, from every source and on either path:
// a value that only begins or ends like one, or holds one with a newline inside, is as unknown as
// turbo. A launcher that reads a prefix or a line takes one of these for a class. What a reference
// that resolves to an empty value means the seed does not say: a launcher declares it
// (conventions.empty_is_unset, below), and no value here holds a NUL, which no env var can and a
// shell cannot (a NUL tests the launcher's language, not its promise).
var nearMisses = []struct{ title, value string }{
	{"one that begins with normal", "normalize"},
	{"one that begins with background", "background-please"},
	{"one that ends with normal", "xnormal"},
	{"normal with a newline inside", "nor\nmal"},
}

var _ = Describe("resolve: near misses and rules on every path", Label(label.ResolveArea, label.DirectArea, label.HostedArea, label.SeedFirstSource), func() {
	modes := []launcher.Mode{launcher.Direct, launcher.Hosted}

	var rows []TableEntry
	for _, mode := range modes {
		add := func(from string, labels ...string) {
			rows = append(rows, Entry(fmt.Sprintf("%s, %s session", from, mode), append(suite.ForMode(mode), append(labels, label.RefusesClass)...), from, mode))
		}
		add("the daemon's env", label.ConvBadDaemonEnvSessions)
		add("the config file", label.NeedsConfig)
		add("a reference in the profile's env", label.NeedsEnvRef)
	}
	DescribeTable("refuses every near miss of a class (normalize, background-please, xnormal, a newline inside), each a non-zero exit, a message, nothing started, from",
		func(from string, mode launcher.Mode) {
			m := env.Driver.Manifest
			// what names the source and the value, as a receipt says what was tried.
			refuse := func(l *launcher.Instance, what string, profileEnv map[string]string) {
				GinkgoHelper()
				tried := fmt.Sprintf("a %s session with %s", mode, what)
				By(tried)
				_, err := l.StartSession(mode, profileEnv)
				suite.ExpectRefused(l, tried, err)
			}
			switch from {
			case "the daemon's env":
				for _, v := range nearMisses {
					refuse(env.Launch(launcher.LaunchOptions{DaemonEnv: map[string]string{m.ClassEnv: v.value}}), fmt.Sprintf("the daemon's env %s=%q", m.ClassEnv, v.value), nil)
				}
			case "the config file":
				l := env.Launch(launcher.LaunchOptions{})
				file, err := l.ConfigFile()
				suite.Must(err)
				for _, v := range nearMisses {
					cfg := map[string]any{}
					setLeaf(cfg, m.Config.FileKey, v.value)
					b, err := json.Marshal(cfg)
					suite.Must(err)
					writeFile(l, file, string(b))
					refuse(l, fmt.Sprintf("the config file's %s %q", m.Config.FileKey, v.value), nil)
				}
			case "a reference in the profile's env":
				daemonEnv := map[string]string{}
				for i, v := range nearMisses {
					daemonEnv[fmt.Sprintf("CP_NEAR_%d", i)] = v.value
				}
				l := env.Launch(launcher.LaunchOptions{DaemonEnv: daemonEnv})
				for i, v := range nearMisses {
					ref := m.DaemonEnvRef(fmt.Sprintf("CP_NEAR_%d", i))
					refuse(l, fmt.Sprintf("the profile's env %s=%q, a reference to %q", m.ClassEnv, ref, v.value), map[string]string{m.ClassEnv: ref})
				}
			}
		}, rows)

	// A reference to an unset variable that expanded to nothing would leave a class behind.
	DescribeTable("refuses a class with a reference to an unset variable inside it (nor${env:CP_NOT_SET}mal): a non-zero exit, a message, nothing started", func(mode launcher.Mode) {
		m := env.Driver.Manifest
		l := env.Launch(launcher.LaunchOptions{})
		value := "nor" + m.DaemonEnvRef("CP_NOT_SET") + "mal"
		_, err := l.StartSession(mode, map[string]string{m.ClassEnv: value})
		suite.ExpectRefused(l, fmt.Sprintf("a %s session with the profile's env %q", mode, value), err)
	},
		Entry("direct session", Label(label.NeedsEnvRef, label.RefusesClass), launcher.Direct),
		Entry("hosted session", Label(label.NeedsEnvRef, label.RefusesClass, label.NeedsHosted), launcher.Hosted),
	)

	It("will not start with a near miss of a class in its env (normalize, background-please, xnormal, a newline inside): each a non-zero exit and a message",
		Label(label.RefusesClass, label.ConvBadDaemonEnvStart), func() {
			for _, v := range nearMisses {
				By(fmt.Sprintf("the daemon's env %q", v.value))
				env.ExpectLaunchRefused(launcher.LaunchOptions{DaemonEnv: map[string]string{env.Driver.Manifest.ClassEnv: v.value}})
			}
		})

	// A declared convention holds on both paths and for every source, as a promise does: a
	// launcher may fold a value where it builds a direct session and not where it builds a spawn
	// spec. The direct path's rows are in order_test.go.
	sources := []struct {
		from   string
		labels []string
	}{{fromProfile, nil}, {fromDaemon, nil}, {fromConfig, []string{label.NeedsConfig}}}
	var folds, empties []TableEntry
	for _, s := range sources {
		folds = append(folds, Entry(fmt.Sprintf("the %s's value", s.from), append(suite.ForMode(launcher.Hosted), s.labels...), s.from))
		if s.from != fromProfile {
			empties = append(empties, Entry(fmt.Sprintf("the %s's value", s.from), append(suite.ForMode(launcher.Hosted), s.labels...), s.from))
		}
	}
	var control oracle.Observation
	BeforeEach(func() { control = env.Control() })
	DescribeTable("takes a value in any case with surrounding spaces on the hosted path too", Label(label.ConvFoldCase, label.ReadsResolved),
		func(at string) {
			l, profileEnv := setAt(at, "  NoRmAl ")
			expectResolvedOn(l, control, launcher.Hosted, profileEnv, "normal", at)
		}, folds)
	DescribeTable("treats an empty value as unset on the hosted path too, so the next source decides", Label(label.ConvEmptyUnset, label.ReadsResolved),
		func(at string) {
			l, profileEnv := setAt(at, "")
			expectResolvedOn(l, control, launcher.Hosted, profileEnv, "background", fromDefault)
		}, empties)
	// An empty value is empty however the profile came to hold it: a reference that resolves to
	// nothing is unset too where the launcher declares so, and the daemon's env decides here, at
	// either class (a launcher that took it for one class would pass the row of that class alone).
	var emptyRefs []TableEntry
	for _, mode := range modes {
		for _, next := range []string{"normal", "background"} {
			emptyRefs = append(emptyRefs, Entry(fmt.Sprintf("%s session, the daemon's env says %s", mode, next), suite.ForMode(mode), mode, next))
		}
	}
	DescribeTable("treats a reference that resolves to an empty value as unset, so the next source decides", Label(label.ConvEmptyUnset, label.NeedsEnvRef, label.ReadsResolved),
		func(mode launcher.Mode, next string) {
			m := env.Driver.Manifest
			l := env.Launch(launcher.LaunchOptions{DaemonEnv: map[string]string{m.ClassEnv: next, "CP_EMPTY": ""}})
			expectResolvedOn(l, control, mode, map[string]string{m.ClassEnv: m.DaemonEnvRef("CP_EMPTY")}, next, fromDaemon)
		}, emptyRefs)

	// Whatever a launcher declares of an empty reference result, the seed's "the first source that
	// sets it wins" and "(normal or background)" hold: nothing is no normal. It refuses the session,
	// or a source after the profile decides (background here).
	DescribeTable("never takes a reference that resolves to an empty value for normal: it refuses the session, or the next source decides", Label(label.NeedsEnvRef, label.ReadsResolved),
		func(mode launcher.Mode) {
			m := env.Driver.Manifest
			l := env.Launch(launcher.LaunchOptions{DaemonEnv: map[string]string{m.ClassEnv: "background", "CP_EMPTY": ""}})
			profileEnv := map[string]string{m.ClassEnv: m.DaemonEnvRef("CP_EMPTY")}
			if _, err := l.StartSession(mode, profileEnv); err != nil {
				suite.ExpectRefused(l, fmt.Sprintf("a %s session with the profile's env %s=%q, a reference to \"\"", mode, m.ClassEnv, profileEnv[m.ClassEnv]), err)
				return
			}
			expectResolvedOn(l, control, mode, profileEnv, "background", fromDaemon)
		},
		Entry("direct session", suite.ForMode(launcher.Direct), launcher.Direct),
		Entry("hosted session", suite.ForMode(launcher.Hosted), launcher.Hosted),
	)
})

// Real profiles live long: a launcher that keeps a profile's class after its first session
// (a cache by name) never lets a config --set or an edited profile reach it again. Each row
// starts two sessions of one profile name on one daemon, the second after the change. Where the
// class is ignored nothing a process shows tells the classes apart: there the launcher's own
// explain, asked about the same profile name after its second session, says what it read.
var _ = Describe("resolve: a reused profile", Label(label.ResolveArea, label.SeedFirstSource), func() {
	for _, p := range lane.Platforms {
		Describe(p.Title, Label(p.Label), func() {
			var control oracle.Observation
			BeforeEach(func() {
				suite.RequirePlatform(p, env.Platform)
				control = env.Control()
			})
			var rows []TableEntry
			for _, mode := range []launcher.Mode{launcher.Direct, launcher.Hosted} {
				needs := suite.ForMode(mode)
				if p.Meaning == oracle.Ignored {
					needs = append(needs, label.ReadsResolved)
				}
				rows = append(rows,
					Entry(fmt.Sprintf("%s session, after a config --set normal", mode), append(needs, label.NeedsConfig), mode, fromConfig),
					Entry(fmt.Sprintf("%s session, after its env changes to normal", mode), needs, mode, fromProfile))
			}
			DescribeTable("gives a profile's second session the class its sources say then, not what they said at its first", func(mode launcher.Mode, change string) {
				m := env.Driver.Manifest
				l := env.Launch(launcher.LaunchOptions{})
				name := "classproof-reused"
				first, err := l.StartSessionAs(mode, name, nil)
				suite.Must(err, "the first session of profile "+name)
				Expect(suite.Observe(first.Subjects()...)).To(suite.BeAtBackground(p.Meaning, control), "the first session of profile %s, before any change", name)
				profileEnv := map[string]string{}
				if change == fromConfig {
					_, err := l.ConfigSet(m.Config.Key, "normal")
					suite.Must(err, "config --set")
				} else {
					profileEnv[m.ClassEnv] = "normal"
				}
				second, err := l.StartSessionAs(mode, name, profileEnv)
				suite.Must(err, "the second session of profile "+name)
				Expect(suite.Observe(second.Subjects()...)).To(suite.HaveControlClass(control), "the second session of profile %s, after the %s said normal", name, change)
				if p.Meaning == oracle.Ignored {
					x, err := l.ExplainAs(name, profileEnv)
					suite.Must(err, "explain for profile "+name+" after its second session")
					Expect(x.Class).To(Equal("normal"), "explain for profile %s, asked after its second session (the %s has said normal since before that session), said %q: the class its first session read", name, change, x.Output)
					if pattern := env.Driver.SourcePattern(change); pattern != "" {
						Expect(x.Source).To(MatchRegexp(pattern), "explain for profile %s names where the class came from; expected the %s", name, change)
					}
				}
			}, rows)
		})
	}
})

// What a refusal names is a convention; declared, it holds on the hosted path as on the direct
// one, where order_test.go and envref_test.go check it.
var _ = Describe("resolve: what a hosted session's refusal names", Label(label.ResolveArea, label.HostedArea, label.NeedsHosted, label.RefusesClass, label.SeedFirstSource), func() {
	type naming struct {
		daemonEnv map[string]string
		value     string // the profile's value; "{ref:NAME}" in the target's reference syntax
		mention   []string
	}
	DescribeTable("names on the hosted path what it names on the direct one, for", func(n naming) {
		m := env.Driver.Manifest
		daemonEnv := map[string]string{}
		for k, v := range n.daemonEnv {
			daemonEnv[strings.ReplaceAll(k, "{class env}", m.ClassEnv)] = v
		}
		l := env.Launch(launcher.LaunchOptions{DaemonEnv: daemonEnv})
		profileEnv := map[string]string{}
		if n.value != "" {
			profileEnv[m.ClassEnv] = refText(n.value)
		}
		mention := make([]string, len(n.mention))
		for i, s := range n.mention {
			mention[i] = strings.ReplaceAll(refText(s), "{class env}", m.ClassEnv)
		}
		_, err := l.StartSession(launcher.Hosted, profileEnv)
		suite.ExpectRefused(l, fmt.Sprintf("a hosted session with the profile's env %q, the daemon's env %q", profileEnv, daemonEnv), err, mention...)
	},
		Entry("an unknown value in the profile's env: the profile, the value and the accepted values",
			suite.RefusalNames(manifest.MentionProfile, manifest.MentionValue, manifest.MentionAccepted),
			naming{value: "turbo", mention: []string{suite.ProfileName, "turbo", "normal", "background"}}),
		Entry("an unknown value in the daemon's env: the source, the value and the accepted values",
			suite.RefusalNames(manifest.MentionSource, manifest.MentionValue, manifest.MentionAccepted), Label(label.ConvBadDaemonEnvSessions),
			naming{daemonEnv: map[string]string{"{class env}": "utility"}, mention: []string{suite.DaemonSource, "utility", "normal", "background"}}),
		Entry("a reference to an unset variable: the profile, the key and the reference",
			suite.RefusalNames(manifest.MentionProfile, manifest.MentionKey, manifest.MentionValue), Label(label.NeedsEnvRef),
			naming{value: "{ref:CP_NOT_SET}", mention: []string{suite.ProfileName, "{class env}", "{ref:CP_NOT_SET}"}}),
		Entry("a reference that resolves to an invalid value: the profile, the reference and the value",
			suite.RefusalNames(manifest.MentionProfile, manifest.MentionValue), Label(label.NeedsEnvRef),
			naming{daemonEnv: map[string]string{"CP_REF": "turbo"}, value: "{ref:CP_REF}", mention: []string{suite.ProfileName, "{ref:CP_REF}", "turbo"}}),
	)
})
