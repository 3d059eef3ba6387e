package suite

import (
	"errors"
	"slices"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"

	"github.com/classproof/classproof/helpers/launcher"
)

// live are the launcher instances of the running spec (Ginkgo runs one spec at a time in a
// process): every observation accounts for all their harnesses (launcher.Instance.Account).
var live instances

type instances struct {
	mu sync.Mutex
	ls []*launcher.Instance
}

// add keeps l until the spec's cleanup; nil (a launch that failed) is not kept.
func (is *instances) add(l *launcher.Instance) {
	if l == nil {
		return
	}
	is.mu.Lock()
	is.ls = append(is.ls, l)
	is.mu.Unlock()
	DeferCleanup(func() {
		is.mu.Lock()
		defer is.mu.Unlock()
		is.ls = slices.DeleteFunc(is.ls, func(x *launcher.Instance) bool { return x == l })
	})
}

// account is every live instance's Account.
func (is *instances) account() error {
	is.mu.Lock()
	ls := slices.Clone(is.ls)
	is.mu.Unlock()
	var errs []error
	for _, l := range ls {
		errs = append(errs, l.Account())
		if seen := l.TakeEvidence(); len(seen) > 0 {
			AddReportEntry("the launcher's other processes (evidence: a helper may run at normal)", strings.Join(seen, "\n"), ReportEntryVisibilityFailureOrVerbose)
		}
	}
	return errors.Join(errs...)
}
