package cpuclass_test

import (
	"fmt"
	"os"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/classproof/classproof/helpers/base/label"
	"github.com/classproof/classproof/helpers/lane"
	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/oracle"
	"github.com/classproof/classproof/helpers/suite"
)

// The promises that depend on what background means on the OS are written once and run per
// platform, each copy under its platform's label; a lane selects its copy with --label-filter.
var _ = Describe("cpuclass", func() {
	for _, p := range lane.Platforms {
		Describe(p.Title, Label(p.Label), func() {
			var (
				control oracle.Observation
				l       *launcher.Instance
			)
			BeforeEach(func() {
				suite.RequirePlatform(p, env.Platform)
				control = env.Control()
				l = env.Launch(launcher.LaunchOptions{})
			})

			Describe("a direct session", Label(label.DirectArea, label.SeedBackground), func() {
				It("starts the direct harness and its tool sleep at "+p.Class, func() {
					s := env.Session(l, launcher.Direct, nil)
					suite.ExpectDescends(s)
					Expect(suite.Observe(s.Subjects()...)).To(suite.BeAtBackground(p.Meaning, control))
				})
			})

			Describe("a hosted session", Label(label.HostedArea, label.NeedsHosted, label.SeedForkExec), func() {
				It("starts the hosted harness and its tool sleep at "+p.Class, func() {
					s := env.Session(l, launcher.Hosted, nil)
					suite.ExpectDescends(s)
					Expect(suite.Observe(s.Subjects()...)).To(suite.BeAtBackground(p.Meaning, control))
				})
			})

			Describe("a tool started after the harness has run a while", Label(label.InheritArea, label.SeedInherit), func() {
				for _, mode := range []launcher.Mode{launcher.Direct, launcher.Hosted} {
					It(fmt.Sprintf("starts the %s harness's later tool at %s too", mode, p.Class), suite.ForMode(mode), func() {
						s := env.Session(l, mode, nil)
						// The harness runs a while, and stays at background all along (nothing
						// reverts the class once the launcher looks away).
						Consistently(func() ([]oracle.Observation, error) { return oracle.Observe(s.Harness()) }).
							WithTimeout(lane.Scale(300 * time.Millisecond)).WithPolling(50 * time.Millisecond).
							Should(suite.BeAtBackground(p.Meaning, control))
						late, err := s.StartLateTool()
						suite.Must(err)
						Expect(suite.Observe(late)).To(suite.BeAtBackground(p.Meaning, control))
					})
				}
			})

			Describe("the harness's whole life", Label(label.InheritArea, label.DirectArea, label.SeedNoRaise), func() {
				It(fmt.Sprintf("keeps the direct and the hosted harness, their tools and a tool each starts late at %s for %s", p.Class, suite.LifeWindowTitle), suite.Long, func() {
					sessions := []*launcher.Session{env.Session(l, launcher.Direct, nil)}
					if len(env.Driver.Manifest.Session.Hosted) > 0 {
						sessions = append(sessions, env.Session(l, launcher.Hosted, nil))
					}
					suite.WatchLife(sessions, suite.BeAtBackground(p.Meaning, control))
				})
			})

			Describe("many sessions at once", Label(label.LoadArea, label.DirectArea, label.HostedArea, label.NeedsHosted, label.SeedBackground), func() {
				It("starts 8 sessions asked for at once, half direct and half hosted, all at "+p.Class, suite.Long, func() {
					asks := make([]launcher.Ask, 8)
					for i := range asks {
						asks[i] = launcher.Ask{L: l, Mode: launcher.Direct}
						if i%2 == 1 {
							asks[i].Mode = launcher.Hosted
						}
					}
					sessions := env.Together(asks...)
					var subjects []oracle.Subject
					for _, s := range sessions {
						subjects = append(subjects, s.Subjects()...)
					}
					Expect(subjects).To(HaveLen(16), "8 harnesses and 8 tools")
					Expect(suite.Observe(subjects...)).To(suite.BeAtBackground(p.Meaning, control))
				})
			})
		})
	}
})

// These promises hold on every platform: they compare with the control, whatever background is.
var _ = Describe("cpuclass, on every platform", func() {
	var (
		control oracle.Observation
		l       *launcher.Instance
	)
	BeforeEach(func() {
		control = env.Control()
		l = env.Launch(launcher.LaunchOptions{})
	})

	Describe("the launcher's own processes", Label(label.IsolateArea, label.SeedNoRenice), func() {
		It("leaves the daemon, the agent host and the kit at their own class while sessions start at background", func() {
			env.Session(l, launcher.Direct, nil)
			if len(env.Driver.Manifest.Session.Hosted) > 0 {
				env.Session(l, launcher.Hosted, nil)
			}
			subjects := []oracle.Subject{
				{Role: "daemon", Pid: l.DaemonPid},
				{Role: suite.OwnRole, Pid: os.Getpid()},
			}
			if l.HostPid != 0 {
				subjects = append(subjects, oracle.Subject{Role: "agent host", Pid: l.HostPid})
			}
			Expect(suite.Observe(subjects...)).To(suite.HaveControlClass(control))
			suite.ExpectOwnClass()
		})
	})

	Describe("the normal opt-out in a profile's env", Label(label.OptOutArea, label.SeedOptOut), func() {
		for _, mode := range []launcher.Mode{launcher.Direct, launcher.Hosted} {
			It(fmt.Sprintf("starts the %s harness and its tool sleep at the control's class", mode), suite.ForMode(mode), func() {
				s := env.Session(l, mode, map[string]string{env.Driver.Manifest.ClassEnv: "normal"})
				Expect(suite.Observe(s.Subjects()...)).To(suite.HaveControlClass(control))
			})
		}
	})
})
