package resolve_test

import (
	"encoding/json"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/classproof/classproof/helpers/base/label"
	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/manifest"
	"github.com/classproof/classproof/helpers/oracle"
	"github.com/classproof/classproof/helpers/suite"
)

// decide is the rule under test: the profile's env, then the daemon's env, then the config key,
// else background.
func decide(profile, daemon, config string) (value, source string) {
	switch {
	case profile != "":
		return profile, fromProfile
	case daemon != "":
		return daemon, fromDaemon
	case config != "":
		return config, fromConfig
	}
	return "background", fromDefault
}

func word(v string) string {
	if v == "" {
		return "unset"
	}
	return v
}

var _ = Describe("resolve: the first source that sets the class wins", Label(label.ResolveArea, label.SeedFirstSource), func() {
	var control oracle.Observation
	BeforeEach(func() { control = env.Control() })

	values := []string{"", "normal", "background"}
	var rows []TableEntry
	for _, p := range values {
		for _, d := range values {
			for _, c := range values {
				want, src := decide(p, d, c)
				needs := Label(label.ReadsResolved)
				if c != "" {
					needs = Label(label.ReadsResolved, label.NeedsConfig)
				}
				rows = append(rows, Entry(fmt.Sprintf("profile env %s, daemon env %s, config %s: %s from the %s", word(p), word(d), word(c), want, src), needs, p, d, c))
			}
		}
	}
	DescribeTable("resolves the session's class", func(p, d, c string) {
		daemonEnv := map[string]string{}
		if d != "" {
			daemonEnv[env.Driver.Manifest.ClassEnv] = d
		}
		l := env.Launch(launcher.LaunchOptions{DaemonEnv: daemonEnv})
		if c != "" {
			Expect(env.Driver.Manifest.Config).NotTo(BeNil(), "the table needs the target's config commands")
			_, err := l.ConfigSet(env.Driver.Manifest.Config.Key, c)
			suite.Must(err)
		}
		profileEnv := map[string]string{}
		if p != "" {
			profileEnv[env.Driver.Manifest.ClassEnv] = p
		}
		want, src := decide(p, d, c)
		expectResolved(l, control, profileEnv, want, src)
	}, rows)

	It("takes a value in any case with surrounding spaces", Label(label.ConvFoldCase, label.ReadsResolved), func() {
		l := env.Launch(launcher.LaunchOptions{})
		expectResolved(l, control, map[string]string{env.Driver.Manifest.ClassEnv: "  NoRmAl "}, "normal", fromProfile)
	})

	It("treats an empty value as unset, so the next source decides", Label(label.ConvEmptyUnset, label.ReadsResolved), func() {
		l := env.Launch(launcher.LaunchOptions{DaemonEnv: map[string]string{env.Driver.Manifest.ClassEnv: "normal"}})
		expectResolved(l, control, map[string]string{env.Driver.Manifest.ClassEnv: ""}, "normal", fromDaemon)
	})

	// A declared convention holds for every source it covers, not only the profile's env.
	DescribeTable("takes a value in any case with surrounding spaces from every source", Label(label.ConvFoldCase, label.ReadsResolved),
		func(at string) {
			l, profileEnv := setAt(at, "  NoRmAl ")
			expectResolved(l, control, profileEnv, "normal", at)
		},
		Entry("the daemon's env", fromDaemon),
		Entry("the config file", Label(label.NeedsConfig), fromConfig),
	)

	DescribeTable("treats an empty value as unset in every source, so the next source decides", Label(label.ConvEmptyUnset, label.ReadsResolved),
		func(at string) {
			l, profileEnv := setAt(at, "")
			expectResolved(l, control, profileEnv, "background", fromDefault)
		},
		Entry("the daemon's env", fromDaemon),
		Entry("the config file", Label(label.NeedsConfig), fromConfig),
	)

	It("refuses an unknown value in a profile's env: a non-zero exit, a message, nothing started", Label(label.RefusesClass), func() {
		l := env.Launch(launcher.LaunchOptions{})
		_, err := l.StartSession(launcher.Direct, map[string]string{env.Driver.Manifest.ClassEnv: "turbo"})
		suite.ExpectRefused(l, `a direct session with the profile's env "turbo"`, err)
	})

	// The seed accepts normal or background and nothing else: a value that only begins or ends
	// like one, or holds one with a newline inside, is as unknown as turbo, on either path (a
	// launcher that took "normalize" for normal kept every spec with turbo green).
	var nearMisses []TableEntry
	for _, v := range []struct{ title, value string }{
		{"one that begins with normal", "normalize"},
		{"one that begins with background", "background-please"},
		{"one that ends with normal", "xnormal"},
		{"normal with a newline inside", "nor\nmal"},
	} {
		for _, mode := range []launcher.Mode{launcher.Direct, launcher.Hosted} {
			nearMisses = append(nearMisses, Entry(fmt.Sprintf("%s session, %s (%q)", mode, v.title, v.value), append(suite.ForMode(mode), label.RefusesClass), mode, v.value))
		}
	}
	DescribeTable("refuses a near miss of a class in a profile's env: a non-zero exit, a message, nothing started", func(mode launcher.Mode, value string) {
		l := env.Launch(launcher.LaunchOptions{})
		_, err := l.StartSession(mode, map[string]string{env.Driver.Manifest.ClassEnv: value})
		suite.ExpectRefused(l, fmt.Sprintf("a %s session with the profile's env %s=%q", mode, env.Driver.Manifest.ClassEnv, value), err)
	}, nearMisses)

	It("refuses an unknown value in a profile's env, naming the profile, the value and the accepted values",
		suite.RefusalNames(manifest.MentionProfile, manifest.MentionValue, manifest.MentionAccepted), Label(label.RefusesClass), func() {
			l := env.Launch(launcher.LaunchOptions{})
			_, err := l.StartSession(launcher.Direct, map[string]string{env.Driver.Manifest.ClassEnv: "turbo"})
			suite.ExpectRefused(l, `a direct session with the profile's env "turbo"`, err, suite.ProfileName, "turbo", "normal", "background")
		})

	// Where the daemon's env is refused is the target's choice (conventions.bad_daemon_env): the
	// seed says neither, and a daemon that will not start is as clear as a refused session.
	It("refuses an unknown value in the daemon's env: a non-zero exit, a message, nothing started", Label(label.RefusesClass, label.ConvBadDaemonEnvSessions), func() {
		l := env.Launch(launcher.LaunchOptions{DaemonEnv: map[string]string{env.Driver.Manifest.ClassEnv: "utility"}})
		_, err := l.StartSession(launcher.Direct, nil)
		suite.ExpectRefused(l, `a direct session with the daemon's env "utility"`, err)
	})

	It("refuses an unknown value in the daemon's env, naming the source and the value",
		suite.RefusalNames(manifest.MentionSource, manifest.MentionValue, manifest.MentionAccepted), Label(label.RefusesClass, label.ConvBadDaemonEnvSessions), func() {
			l := env.Launch(launcher.LaunchOptions{DaemonEnv: map[string]string{env.Driver.Manifest.ClassEnv: "utility"}})
			_, err := l.StartSession(launcher.Direct, nil)
			suite.ExpectRefused(l, `a direct session with the daemon's env "utility"`, err, suite.DaemonSource, "utility", "normal", "background")
		})

	It("will not start with an unknown value in its env: a non-zero exit and a message", Label(label.RefusesClass, label.ConvBadDaemonEnvStart), func() {
		env.ExpectLaunchRefused(launcher.LaunchOptions{DaemonEnv: map[string]string{env.Driver.Manifest.ClassEnv: "utility"}})
	})

	It("will not start with an unknown value in its env, naming the value", suite.RefusalNames(manifest.MentionValue), Label(label.RefusesClass, label.ConvBadDaemonEnvStart), func() {
		env.ExpectLaunchRefused(launcher.LaunchOptions{DaemonEnv: map[string]string{env.Driver.Manifest.ClassEnv: "utility"}}, "utility")
	})
})

// setAt launches the target with value at one source (fromProfile, fromDaemon or fromConfig) and
// returns the profile env for a session. A config value is written into the file the manifest
// names, as it is: config --set may tidy a value before storing it, and what is checked here is
// how the daemon reads the file.
func setAt(at, value string) (*launcher.Instance, map[string]string) {
	GinkgoHelper()
	m := env.Driver.Manifest
	opts := launcher.LaunchOptions{}
	if at == fromDaemon {
		opts.DaemonEnv = map[string]string{m.ClassEnv: value}
	}
	l := env.Launch(opts)
	profileEnv := map[string]string{}
	switch at {
	case fromProfile:
		profileEnv[m.ClassEnv] = value
	case fromConfig:
		file, err := l.ConfigFile()
		suite.Must(err)
		cfg := map[string]any{}
		setLeaf(cfg, m.Config.FileKey, value)
		b, err := json.Marshal(cfg)
		suite.Must(err)
		writeFile(l, file, string(b))
	}
	return l, profileEnv
}
