package cpuclass_test

import (
	"fmt"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/classproof/classproof/helpers/base/label"
	"github.com/classproof/classproof/helpers/lane"
	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/oracle"
	"github.com/classproof/classproof/helpers/suite"
)

// daemonSources is one daemon of the burst: what its own sources say, and the class half of its
// sessions set in their profile's env instead. Each daemon so decides two classes at once, from
// two sources.
type daemonSources struct {
	title     string // as the receipt names the daemon
	daemonEnv string // its env's class ("": unset)
	config    string // its config key ("": unset)
	profile   string // what half of its sessions set in the profile's env
	rest      string // the class the other half get from the daemon's own sources
	from      string // where that comes from
}

// burstSources are the daemons of the burst: one whose env sets the class, one whose config does
// (where the target has config commands) or, without config, one where nothing does.
func burstSources(hasConfig bool) []daemonSources {
	d := []daemonSources{{title: "daemon whose env says normal", daemonEnv: "normal", profile: "background", rest: "normal", from: "the daemon's env"}}
	if hasConfig {
		return append(d, daemonSources{title: "daemon whose config says normal", config: "normal", profile: "background", rest: "normal", from: "the config"})
	}
	return append(d, daemonSources{title: "daemon with no source set", profile: "normal", rest: "background", from: "the default"})
}

// perPath is how many sessions each daemon is asked for on each path, every other one with the
// class in the profile's env: with four, however they arrive, a launcher that serves them one at
// a time from a class the last of them set gives at least one the other class.
const perPath = 4

// A launcher may keep the class it decided for one session where a session asked for at the same
// time can reach it (a field its threads share): each session alone, and every burst of one
// class, then starts at the class its sources say, and only sessions side by side with different
// classes show the swap (issue 69). Observed through the class, so only where it takes effect.
var _ = Describe("sessions of different classes at once", Label(label.LoadArea, label.ResolveArea, label.DirectArea, label.HostedArea, label.SeedFirstSource), func() {
	for _, p := range lane.Platforms {
		if p.Meaning == oracle.Ignored {
			continue
		}
		Describe(p.Title, Label(p.Label), func() {
			It("starts every session of a burst to two daemons whose sources differ at the class its own sources say", suite.Long, func() {
				suite.RequirePlatform(p, env.Platform)
				control := env.Control()
				m := env.Driver.Manifest
				modes := []launcher.Mode{launcher.Direct}
				if len(m.Session.Hosted) > 0 {
					modes = append(modes, launcher.Hosted)
				}
				var asks []launcher.Ask
				var why []string // each ask's expectation, as its receipt says it
				var want []string
				for _, d := range burstSources(m.Config != nil) {
					opts := launcher.LaunchOptions{}
					if d.daemonEnv != "" {
						opts.DaemonEnv = map[string]string{m.ClassEnv: d.daemonEnv}
					}
					l := env.Launch(opts)
					if d.config != "" {
						_, err := l.ConfigSet(m.Config.Key, d.config)
						suite.Must(err, "config --set in the "+d.title)
					}
					for k, mode := range modes {
						for j := 0; j < perPath; j++ {
							a := launcher.Ask{L: l, Mode: mode}
							if (j+k)%2 == 0 {
								a.ProfileEnv = map[string]string{m.ClassEnv: d.profile}
								want, why = append(want, d.profile), append(why, fmt.Sprintf("%s, profile env %s: %s from the profile", d.title, d.profile, d.profile))
							} else {
								want, why = append(want, d.rest), append(why, fmt.Sprintf("%s, profile env unset: %s from %s", d.title, d.rest, d.from))
							}
							asks = append(asks, a)
						}
					}
				}
				sessions := env.Together(asks...)
				var background, normal []oracle.Subject
				for i, s := range sessions {
					for _, sub := range s.Subjects() {
						sub.Role = fmt.Sprintf("%s of session %d (%s)", sub.Role, i+1, why[i])
						if want[i] == "background" {
							background = append(background, sub)
						} else {
							normal = append(normal, sub)
						}
					}
				}
				// Both read in one look (one ps, one account of the launchers' processes) before
				// either is judged: a swap puts one of each on the wrong side.
				all := suite.Observe(slices.Concat(background, normal)...)
				bg, nm := all[:len(background)], all[len(background):]
				Expect(bg).To(suite.BeAtBackground(p.Meaning, control), "each session of the burst whose own sources say background")
				Expect(nm).To(suite.HaveControlClass(control), "each session of the burst whose own sources say normal")
			})
		})
	}
})
