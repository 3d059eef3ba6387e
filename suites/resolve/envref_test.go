package resolve_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"

	"github.com/classproof/classproof/helpers/class"
	"github.com/classproof/classproof/helpers/kit"
	"github.com/classproof/classproof/helpers/lane"
	"github.com/classproof/classproof/helpers/target"
)

// The reference syntax is the target's own (env_ref in its manifest); refmux's is ${env:NAME}.
var _ = Describe("resolve: env references in a profile's env", Label(lane.ResolveArea, lane.EnvRefArea), func() {
	var (
		control  class.Observation
		classEnv string
		ref      func(string) string
	)
	BeforeEach(func() {
		if env.Driver.M.EnvRef == nil {
			Skip("target " + env.Driver.M.Name + " declares no env_ref: it has no env references to test")
		}
		control = env.Control()
		classEnv, ref = env.Driver.M.ClassEnv, env.Driver.M.Ref
	})

	It("opts out when the profile's reference resolves to normal", func() {
		l, _ := env.Launch(target.LaunchOptions{DaemonEnv: map[string]string{"CP_REF": "normal"}})
		expectResolved(l, control, map[string]string{classEnv: ref("CP_REF")}, "normal", fromProfile)
	})

	It("starts at background when the reference resolves to background, over a config that says normal", func() {
		l, _ := env.Launch(target.LaunchOptions{DaemonEnv: map[string]string{"CP_REF": "background"}})
		if env.Driver.M.Config != nil {
			_, err := l.ConfigSet(env.Driver.M.Config.Key, "normal")
			kit.Must(err)
		}
		expectResolved(l, control, map[string]string{classEnv: ref("CP_REF")}, "background", fromProfile)
	})

	It("refuses a reference to an unset variable, naming the profile, the key and the reference", func() {
		l, _ := env.Launch(target.LaunchOptions{})
		_, err := l.StartSession(target.Direct, map[string]string{classEnv: ref("CP_NOT_SET")})
		kit.ExpectRefused(l, err, kit.ProfileName, classEnv, ref("CP_NOT_SET"))
	})

	var malformed []TableEntry
	if m := env.Manifest; m != nil && m.EnvRef != nil {
		for _, raw := range m.EnvRef.Malformed {
			r := strings.ReplaceAll(raw, "{name}", "CP_REF")
			malformed = append(malformed, Entry(r, r))
		}
	}
	DescribeTable("refuses a malformed reference, naming the profile, the key and the reference", func(raw string) {
		l, _ := env.Launch(target.LaunchOptions{DaemonEnv: map[string]string{"CP_REF": "normal"}})
		_, err := l.StartSession(target.Direct, map[string]string{classEnv: raw})
		kit.ExpectRefused(l, err, kit.ProfileName, classEnv, raw)
	}, malformed)

	It("names both the reference and the variable when the reference resolves to an invalid value", func() {
		l, _ := env.Launch(target.LaunchOptions{DaemonEnv: map[string]string{"CP_REF": "turbo"}})
		_, err := l.StartSession(target.Direct, map[string]string{classEnv: ref("CP_REF")})
		kit.ExpectRefused(l, err, kit.ProfileName, ref("CP_REF"), "turbo")
	})

	It("expands once: a variable that holds another reference is not expanded again", func() {
		inner := ref("CP_INNER")
		l, _ := env.Launch(target.LaunchOptions{DaemonEnv: map[string]string{"CP_REF": inner, "CP_INNER": "normal"}})
		_, err := l.StartSession(target.Direct, map[string]string{classEnv: ref("CP_REF")})
		kit.ExpectRefused(l, err, kit.ProfileName, inner)
	})

	It("never expands through a shell", func() {
		l, _ := env.Launch(target.LaunchOptions{DaemonEnv: map[string]string{"CP_REF": "$(echo normal)"}})
		_, err := l.StartSession(target.Direct, map[string]string{classEnv: ref("CP_REF")})
		kit.ExpectRefused(l, err, kit.ProfileName, "$(echo normal)")
	})
})
