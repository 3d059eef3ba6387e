package compat_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/classproof/classproof/helpers/class"
	"github.com/classproof/classproof/helpers/kit"
	"github.com/classproof/classproof/helpers/lane"
	"github.com/classproof/classproof/helpers/target"
)

// The seed's behaviour on Linux: the launcher reads the class (explain shows it resolved) and
// ignores it (every process keeps the control's class). Both halves are proven per value.
var _ = Describe("compat: a target that reads the class and ignores it", Label(lane.LinuxIgnore, lane.CompatArea), func() {
	var control class.Observation
	BeforeEach(func() {
		p, err := lane.Current(class.Ignored)
		kit.Must(err, "the linux-ignore lane")
		kit.RequirePlatform(p, env.Platform)
		control = env.Control()
	})

	var rows []TableEntry
	for _, value := range []string{"normal", "background"} {
		for _, source := range []string{"profile env", "daemon env", "config"} {
			for _, mode := range []target.Mode{target.Direct, target.Hosted} {
				needs := kit.ForMode(mode)
				if source == "config" {
					needs = append(needs, target.NeedsConfig)
				}
				rows = append(rows, Entry(fmt.Sprintf("%s from the %s, %s session", value, source, mode), needs, value, source, mode))
			}
		}
	}
	DescribeTable("keeps the harness and its tools at the control's class while explain reports the resolved value",
		func(value, source string, mode target.Mode) {
			opts := target.LaunchOptions{}
			profileEnv := map[string]string{}
			switch source {
			case "profile env":
				profileEnv[env.Driver.M.ClassEnv] = value
			case "daemon env":
				opts.DaemonEnv = map[string]string{env.Driver.M.ClassEnv: value}
			}
			l := env.Launch(opts)
			if source == "config" {
				Expect(env.Driver.M.Config).NotTo(BeNil(), "this row needs the target's config commands")
				_, err := l.ConfigSet(env.Driver.M.Config.Key, value)
				kit.Must(err)
			}
			x, err := l.Explain(profileEnv)
			kit.Must(err)
			Expect(x.Class).To(Equal(value), "read: explain said %q", x.Output)
			s := env.Session(l, mode, profileEnv)
			Expect(kit.Observe(s.Subjects()...)).To(kit.HaveControlClass(control), "ignored")
		}, rows)
})
