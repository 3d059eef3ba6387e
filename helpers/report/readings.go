package report

import (
	"fmt"
	"strings"

	"github.com/classproof/classproof/helpers/base/contract"
)

// Readings says how many judged processes each reading decided, over the run ("" when the
// matchers judged none): on macOS, base pri where proc_pidinfo read it, else ps pri, and every one
// decided by ps pri is the runner telling that the base priority was not read.
func (r *Run) Readings() string {
	total := map[string]int{}
	n := 0
	for _, s := range r.Specs {
		for k, c := range s.Readings {
			total[k] += c
			n += c
		}
	}
	if n == 0 {
		return ""
	}
	var parts []string
	for _, k := range []string{contract.ReadingBasePri, contract.ReadingPsPri, contract.ReadingEveryField} {
		if total[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d decided by %s", total[k], k))
		}
	}
	return fmt.Sprintf("%d processes judged (%s); each one's reading is in report.json", n, strings.Join(parts, ", "))
}
