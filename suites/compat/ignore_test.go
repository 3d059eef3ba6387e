package compat_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/classproof/classproof/helpers/base/label"
	"github.com/classproof/classproof/helpers/lane"
	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/oracle"
	"github.com/classproof/classproof/helpers/suite"
)

// The seed's behaviour on Linux: the launcher reads the class and ignores it. What every launcher
// shows: every process keeps the control's class, whichever value came from whichever source.
// What a launcher with explain shows too: that it read the class (explain reports the resolved
// value); without explain that half is left out, with its reason, and the first still runs.
var _ = Describe("compat: a target that reads the class and ignores it", Label(label.LinuxIgnore, label.CompatArea, label.SeedLinuxIgnores), func() {
	var control oracle.Observation
	BeforeEach(func() {
		p, err := lane.Current(oracle.Ignored)
		suite.Must(err, "the linux-ignore lane")
		suite.RequirePlatform(p, env.Platform)
		control = env.Control()
	})

	// launch starts the launcher with value set at source, and the profile env a session gets.
	launch := func(value, source string) (*launcher.Instance, map[string]string) {
		opts := launcher.LaunchOptions{}
		profileEnv := map[string]string{}
		switch source {
		case "profile env":
			profileEnv[env.Driver.Manifest.ClassEnv] = value
		case "daemon env":
			opts.DaemonEnv = map[string]string{env.Driver.Manifest.ClassEnv: value}
		}
		l := env.Launch(opts)
		if source == "config" {
			Expect(env.Driver.Manifest.Config).NotTo(BeNil(), "this row needs the target's config commands")
			_, err := l.ConfigSet(env.Driver.Manifest.Config.Key, value)
			suite.Must(err)
		}
		return l, profileEnv
	}

	var kept, read []TableEntry
	for _, value := range []string{"normal", "background"} {
		for _, source := range []string{"profile env", "daemon env", "config"} {
			config := Label()
			if source == "config" {
				config = Label(label.NeedsConfig)
			}
			read = append(read, Entry(fmt.Sprintf("%s from the %s", value, source), config, value, source))
			for _, mode := range []launcher.Mode{launcher.Direct, launcher.Hosted} {
				needs := append(suite.ForMode(mode), config...)
				kept = append(kept, Entry(fmt.Sprintf("%s from the %s, %s session", value, source, mode), needs, value, source, mode))
			}
		}
	}
	DescribeTable("keeps the harness and its tools at the control's class when the class resolves to",
		func(value, source string, mode launcher.Mode) {
			l, profileEnv := launch(value, source)
			s := env.Session(l, mode, profileEnv)
			Expect(suite.Observe(s.Subjects()...)).To(suite.HaveControlClass(control), "ignored")
		}, kept)
	DescribeTable("reads the class it ignores: explain reports the resolved value", Label(label.NeedsExplain),
		func(value, source string) {
			l, profileEnv := launch(value, source)
			x, err := l.Explain(profileEnv)
			suite.Must(err)
			Expect(x.Class).To(Equal(value), "read: explain said %q", x.Output)
		}, read)
})
