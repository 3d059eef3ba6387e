// Package lane is what differs between CI lanes: which platform a run is on, the labels that
// select specs for it, and the one time scale for slow machines. It does not import the Ginkgo
// DSL: the CLI side (runner, gate) uses it too; the runtime guard lives in helpers/suite.
package lane

import (
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/label"
	"github.com/classproof/classproof/helpers/oracle"
)

// The lanes are named after the platform labels (helpers/base/label): a lane selects its platform's
// specs, and its own name is that label.

// Platform is an OS together with what background means there for the target.
type Platform struct {
	Label   string
	GOOS    string
	Meaning oracle.Meaning
	Title   string
	// Class is what a started process is held to here, as spec titles say it: background class,
	// or the control's class where the target reads the class and ignores it.
	Class string
	// Needs says why another lane leaves this platform's specs out.
	Needs string
}

// ByLabel is the platform a lane's label names.
func ByLabel(label string) (Platform, bool) {
	for _, p := range Platforms {
		if p.Label == label {
			return p, true
		}
	}
	return Platform{}, false
}

// Platforms are the three the suites are written for.
var Platforms = []Platform{
	{Label: label.Darwin, GOOS: "darwin", Meaning: oracle.DarwinBG, Title: "on macOS (PRIO_DARWIN_BG)", Class: "background class",
		Needs: "needs macOS (PRIO_DARWIN_BG): runs in the darwin lane"},
	{Label: label.LinuxIdle, GOOS: "linux", Meaning: oracle.LinuxIdle, Title: "on Linux, idle mode (SCHED_IDLE + I/O idle)", Class: "background class",
		Needs: "needs a target whose Linux background is idle (SCHED_IDLE): runs in the linux-idle lane"},
	{Label: label.LinuxIgnore, GOOS: "linux", Meaning: oracle.Ignored, Title: "on Linux, ignore mode (class read, not applied)", Class: "the control's class",
		Needs: "needs a target whose Linux background is ignore: runs in the linux-ignore lane"},
}

// Current is the platform of this run for a target whose background means m on this OS.
func Current(m oracle.Meaning) (Platform, error) {
	for _, p := range Platforms {
		if p.GOOS == runtime.GOOS && p.Meaning == m {
			return p, nil
		}
	}
	return Platform{}, fmt.Errorf("no lane for %s with background %q", runtime.GOOS, m)
}

// Needs says why a lane leaves out a spec labelled for another platform; ok is false for a label
// that names no platform.
func Needs(label string) (string, bool) {
	p, ok := ByLabel(label)
	return p.Needs, ok
}

// Names are the lanes, in the order the kit lists them.
func Names() []string {
	var n []string
	for _, p := range Platforms {
		n = append(n, p.Label)
	}
	return n
}

// Filter is the label filter that selects a lane's specs: its own platform's, and the ones that
// are bound to no platform.
func Filter(label string) (string, error) {
	if _, ok := Needs(label); !ok {
		return "", fmt.Errorf("unknown lane %q; accepted: %s", label, strings.Join(Names(), ", "))
	}
	var not []string
	for _, n := range Names() {
		if n != label {
			not = append(not, "!"+n)
		}
	}
	return strings.Join(not, " && "), nil
}

// Scale returns d times $CLASSPROOF_TIME_SCALE (default 1; contract.Scaled). A bad value panics
// with a message naming it: silently running with the default would hide a misconfigured lane.
func Scale(d time.Duration) time.Duration {
	v, err := contract.Scaled(d)
	if err != nil {
		panic(err.Error())
	}
	return v
}
