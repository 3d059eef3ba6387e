package cpuclass_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"

	"github.com/classproof/classproof/helpers/base/label"
	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/suite"
)

// oddArgs are harness arguments a shell would change: a real harness is handed prompts and paths
// like these every day, while the kit's own arguments (report paths, a token) are plain, so
// every other spec passes a launcher that re-splits argv (an exec helper that joins it with
// spaces into sh -c). The quotes are balanced, so such a launcher starts a harness with changed
// arguments, which the receipt shows, rather than one whose shell fails on the syntax. The
// harness's folder holds the kit's files, so a glob expanded there changes the argument. A control
// character (a newline, a tab) is a declared convention, not here: bash's printf %q writes one
// as $'...', which a host whose shell is sh passes on as a literal $ (the foreign shmux under
// tmux with SHELL=/bin/sh), and a line-based transport splits a newline; the seed says nothing
// of either.
var oddArgs = []string{
	"two words",
	`'single' and "double" quotes`,
	"$HOME ${HOME}",
	"*",
	"?",
	"",
	`back\slash`,
	"",
}

// The harness the profile names is what starts, with its arguments: "each session's harness now
// starts" (seed 000) the harness its profile's command names. Judged from the kernel's argv of the
// harness (launcher.Session.ArgvAsHanded), not from what the launcher or the harness says; the
// same on every platform, whether the class is applied or ignored.
var _ = Describe("cpuclass, on every platform: the harness's arguments", Label(label.SeedHarness), func() {
	for _, mode := range []launcher.Mode{launcher.Direct, launcher.Hosted} {
		area := Label(label.DirectArea)
		if mode == launcher.Hosted {
			area = Label(label.HostedArea)
		}
		It(fmt.Sprintf("starts the %s harness with every argument its profile hands it, byte for byte: a space, quotes, a $, a glob, empty ones", mode), area, suite.ForMode(mode), func() {
			expectArgvWhole(mode, oddArgs...)
		})
		It(fmt.Sprintf("starts the %s harness with arguments that hold a newline or a tab, whole", mode), area, suite.ForMode(mode), Label(label.ConvArgvControl), func() {
			expectArgvWhole(mode, "line one\nline two", "\n", "tab\there")
		})
	}
})

// expectArgvWhole starts a session at the default class (where a launcher's class step runs)
// whose harness command ends in args, after "--" so the harness takes them as no flags of its own,
// and fails unless the harness runs with every argument as handed.
func expectArgvWhole(mode launcher.Mode, args ...string) {
	GinkgoHelper()
	l := env.Launch(launcher.LaunchOptions{})
	s, err := l.StartSessionWith(mode, nil, append([]string{"--"}, args...)...)
	suite.Must(err, "starting a "+string(mode)+" session whose harness is handed odd arguments")
	suite.Must(s.ArgvAsHanded())
}
