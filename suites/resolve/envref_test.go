package resolve_test

import (
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"

	"github.com/classproof/classproof/helpers/base/label"
	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/manifest"
	"github.com/classproof/classproof/helpers/oracle"
	"github.com/classproof/classproof/helpers/suite"
)

// The reference syntax is the target's own (env_ref in its manifest); refmux's is ${env:NAME}.
var _ = Describe("resolve: env references in a profile's env", Label(label.ResolveArea, label.EnvRefArea, label.NeedsEnvRef, label.SeedEnvRef), func() {
	var (
		control  oracle.Observation
		classEnv string
		ref      func(string) string
	)
	BeforeEach(func() {
		if env.Driver.Manifest.EnvRef == nil {
			Skip("target " + env.Driver.Manifest.Name + " declares no env_ref: it has no env references to test")
		}
		control = env.Control()
		classEnv, ref = env.Driver.Manifest.ClassEnv, env.Driver.Manifest.DaemonEnvRef
	})

	It("opts out when the profile's reference resolves to normal", Label(label.ReadsResolved), func() {
		l := env.Launch(launcher.LaunchOptions{DaemonEnv: map[string]string{"CP_REF": "normal"}})
		expectResolved(l, control, map[string]string{classEnv: ref("CP_REF")}, "normal", fromProfile)
	})

	It("starts at background when the reference resolves to background, over a config that says normal", Label(label.ReadsResolved), func() {
		l := env.Launch(launcher.LaunchOptions{DaemonEnv: map[string]string{"CP_REF": "background"}})
		if env.Driver.Manifest.Config != nil {
			_, err := l.ConfigSet(env.Driver.Manifest.Config.Key, "normal")
			suite.Must(err)
		}
		expectResolved(l, control, map[string]string{classEnv: ref("CP_REF")}, "background", fromProfile)
	})

	It("refuses a reference to an unset variable: a non-zero exit, a message, nothing started", Label(label.RefusesClass), func() {
		l := env.Launch(launcher.LaunchOptions{})
		_, err := l.StartSession(launcher.Direct, map[string]string{classEnv: ref("CP_NOT_SET")})
		suite.ExpectRefused(l, fmt.Sprintf("a direct session with the profile's env %q (CP_NOT_SET unset)", ref("CP_NOT_SET")), err)
	})

	It("refuses a reference to an unset variable, naming the profile, the key and the reference",
		suite.RefusalNames(manifest.MentionProfile, manifest.MentionKey, manifest.MentionValue), Label(label.RefusesClass), func() {
			l := env.Launch(launcher.LaunchOptions{})
			_, err := l.StartSession(launcher.Direct, map[string]string{classEnv: ref("CP_NOT_SET")})
			suite.ExpectRefused(l, fmt.Sprintf("a direct session with the profile's env %q (CP_NOT_SET unset)", ref("CP_NOT_SET")), err, suite.ProfileName, classEnv, ref("CP_NOT_SET"))
		})

	var malformed []TableEntry
	if m := env.Manifest; m != nil && m.EnvRef != nil {
		for _, raw := range m.EnvRef.Malformed {
			r := strings.ReplaceAll(raw, "{name}", "CP_REF")
			malformed = append(malformed, Entry(r, r))
		}
	}
	// refusedWith starts a session with the class env set to value (the daemon's env holding
	// daemonEnv) and checks it is refused, mentioning what a convention spec names.
	refusedWith := func(daemonEnv map[string]string, value string, mention ...string) {
		GinkgoHelper()
		l := env.Launch(launcher.LaunchOptions{DaemonEnv: daemonEnv})
		_, err := l.StartSession(launcher.Direct, map[string]string{classEnv: value})
		suite.ExpectRefused(l, fmt.Sprintf("a direct session with the profile's env %q, the daemon's env %q", value, daemonEnv), err, mention...)
	}

	DescribeTable("refuses a malformed reference: a non-zero exit, a message, nothing started", func(raw string) {
		refusedWith(map[string]string{"CP_REF": "normal"}, raw)
	}, Label(label.RefusesClass), malformed)

	DescribeTable("refuses a malformed reference, naming the profile, the key and the reference", func(raw string) {
		refusedWith(map[string]string{"CP_REF": "normal"}, raw, suite.ProfileName, classEnv, raw)
	}, suite.RefusalNames(manifest.MentionProfile, manifest.MentionKey, manifest.MentionValue), Label(label.RefusesClass), malformed)

	It("refuses a reference that resolves to an invalid value", Label(label.RefusesClass), func() {
		refusedWith(map[string]string{"CP_REF": "turbo"}, ref("CP_REF"))
	})

	It("names both the reference and the variable when the reference resolves to an invalid value",
		suite.RefusalNames(manifest.MentionProfile, manifest.MentionValue), Label(label.RefusesClass), func() {
			refusedWith(map[string]string{"CP_REF": "turbo"}, ref("CP_REF"), suite.ProfileName, ref("CP_REF"), "turbo")
		})

	It("expands once: a variable that holds another reference is refused, not expanded again", Label(label.RefusesClass), func() {
		refusedWith(map[string]string{"CP_REF": ref("CP_INNER"), "CP_INNER": "normal"}, ref("CP_REF"))
	})

	It("expands once: a variable that holds another reference is not expanded again",
		suite.RefusalNames(manifest.MentionProfile, manifest.MentionValue), Label(label.RefusesClass), func() {
			inner := ref("CP_INNER")
			refusedWith(map[string]string{"CP_REF": inner, "CP_INNER": "normal"}, ref("CP_REF"), suite.ProfileName, inner)
		})

	It("never expands through a shell: a value with a command substitution is refused", Label(label.RefusesClass), func() {
		refusedWith(map[string]string{"CP_REF": "$(echo normal)"}, ref("CP_REF"))
	})

	It("never expands through a shell", suite.RefusalNames(manifest.MentionProfile, manifest.MentionValue), Label(label.RefusesClass), func() {
		refusedWith(map[string]string{"CP_REF": "$(echo normal)"}, ref("CP_REF"), suite.ProfileName, "$(echo normal)")
	})
})
