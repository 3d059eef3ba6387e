package suite

import (
	"fmt"
	"os"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/classproof/classproof/helpers/oracle"
)

// The kit's own class, read when this test process opened (openEach). Every control and every
// "normal" in the suites is relative to the class the kit's processes inherit, so a launcher that
// changes that class (it writes the autogroup it shares with the kit, say) would turn every
// receipt against the harness, and a comparison with a control that moved too would pass. These
// are per process and written once, before any spec: the matchers are package functions that the
// suites call with the control alone.
var (
	ownStart *oracle.Observation
	// ownKernel is the kernel's settings behind ownStart (oracle.KernelSettings), read with it:
	// while they are the same, ps would read the same class, and checkOwn needs no ps call.
	ownKernel  string
	firstMoved string // when the kit's own class was first seen changed, for every later message
)

// OwnRole is how receipts name this test process.
const OwnRole = "kit (this test process)"

// readOwnStart reads the class this process runs at before any launcher starts.
func readOwnStart() {
	k, kerr := oracle.KernelSettings(os.Getpid())
	o, err := oracle.ObserveOne(OwnRole+" at the start of the run", os.Getpid())
	Must(err, "reading the kit's own class")
	if k2, err := oracle.KernelSettings(os.Getpid()); kerr == nil && err == nil && k2 == k {
		ownKernel = k // unchanged around the ps call: what ps read is what these settings give
	}
	ownStart = &o
}

// OwnStart is the kit's own class when this test process opened.
func OwnStart() oracle.Observation {
	if ownStart == nil {
		return oracle.Observation{}
	}
	return *ownStart
}

// ownMoved says how o (the kit itself, or a control it started) differs from the kit's class at
// the start of the run, as a receipt; "" when it does not, or when no start was read.
func ownMoved(o oracle.Observation, when string) string {
	if ownStart == nil {
		return ""
	}
	same, why := oracle.SameSettings(o, *ownStart)
	if same {
		return ""
	}
	why = strings.ReplaceAll(why, "control's", "at the start")
	if firstMoved == "" {
		firstMoved = fmt.Sprintf("%s, %s", when, time.Now().Format("15:04:05.000"))
	}
	return fmt.Sprintf("the kit's own class changed during the run: %s -- %s; at the start of the run: %s; first seen %s. "+
		"A process of this run changed a class the kit's processes inherit (the autogroup they share, say): every control and "+
		"every \"normal\" after that is wrong, so the run fails here, not on the harness. classproof restores nothing; "+
		"this lane ran in a session of its own, so the next run starts clean",
		o, why, ownStart.Summary(), firstMoved)
}

// checkOwn fails when the kit's own class is no longer the one it started at.
func checkOwn(when string) {
	GinkgoHelper()
	if k, err := oracle.KernelSettings(os.Getpid()); err == nil && ownKernel != "" && k == ownKernel {
		return // every setting ps reads the class from is as it was at the start
	}
	o, err := oracle.ObserveOne(OwnRole, os.Getpid())
	Must(err, "reading the kit's own class "+when)
	if moved := ownMoved(o, when); moved != "" {
		Fail(moved)
	}
}

// ExpectOwnClass fails the running spec when the kit's own class is no longer the one it had at
// the start of the run.
func ExpectOwnClass() {
	GinkgoHelper()
	checkOwn("in spec " + CurrentSpecReport().FullText())
}
