package resolve_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"

	"github.com/classproof/classproof/helpers/base/label"
	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/oracle"
	"github.com/classproof/classproof/helpers/suite"
)

// What one session leaves must not decide the next one's class (issue 69): a launcher that builds
// a harness's env on its own env, not on a copy, makes a profile's class the daemon's env for
// every later session of that daemon. Each row runs, in one daemon, a session of a profile that
// sets the class, then one of a profile that sets nothing (whose class the daemon's own sources
// give), then the first profile again.
var _ = Describe("resolve: sessions one after another in one daemon", Label(label.ResolveArea, label.ReadsResolved, label.SeedFirstSource), func() {
	var control oracle.Observation
	BeforeEach(func() { control = env.Control() })

	type sequence struct {
		mode      launcher.Mode
		daemonEnv string // the daemon's env's class ("": unset)
		profile   string // what the first profile sets
		rest      string // what the daemon's sources give a profile that sets nothing
		from      string // where that comes from
	}
	// One row per path, each the other way round: a value that leaks shows on either path, as
	// the class that should have come from the daemon's own sources, whichever class it is.
	var rows []TableEntry
	for _, q := range []sequence{
		{mode: launcher.Direct, profile: "normal", rest: "background", from: fromDefault},
		{mode: launcher.Hosted, daemonEnv: "normal", profile: "background", rest: "normal", from: fromDaemon},
	} {
		rows = append(rows, Entry(fmt.Sprintf("%s sessions, a profile that says %s, then one that sets nothing (%s from the %s), then the first again", q.mode, q.profile, q.rest, q.from),
			suite.ForMode(q.mode), q))
	}
	DescribeTable("gives each session the class its own sources say, whatever the session before it set", func(q sequence) {
		m := env.Driver.Manifest
		opts := launcher.LaunchOptions{}
		if q.daemonEnv != "" {
			opts.DaemonEnv = map[string]string{m.ClassEnv: q.daemonEnv}
		}
		l := env.Launch(opts)
		sets := map[string]string{m.ClassEnv: q.profile}
		expectResolvedAs(l, control, q.mode, "classproof-sets", sets, q.profile, fromProfile)
		expectResolvedAs(l, control, q.mode, "classproof-unset", nil, q.rest, q.from)
		expectResolvedAs(l, control, q.mode, "classproof-sets", sets, q.profile, fromProfile)
	}, rows)
})
