package lane

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/classproof/classproof/helpers/base/contract"
)

func TestFiltersLeaveOutTheOtherPlatforms(t *testing.T) {
	for _, p := range Platforms {
		f, err := Filter(p.Label)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range Platforms {
			left := strings.Contains(f, "!"+q.Label)
			if left == (q.Label == p.Label) {
				t.Errorf("lane %s filter %q: %s left out = %v", p.Label, f, q.Label, left)
			}
		}
	}
	if _, err := Filter("windows"); err == nil {
		t.Error("unknown lane accepted")
	}
}

func TestScale(t *testing.T) {
	t.Setenv(contract.ScaleEnv, "2.5")
	if got := Scale(2 * time.Second); got != 5*time.Second {
		t.Errorf("got %v", got)
	}
	t.Setenv(contract.ScaleEnv, "fast")
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), `"fast"`) {
			t.Errorf("bad scale: %v", r)
		}
	}()
	Scale(time.Second)
}

// A time scale of zero would turn every Eventually into an immediate failure: refused, like a
// negative one, naming the variable.
func TestScaleRefusesZeroAndBelow(t *testing.T) {
	for _, v := range []string{"0", "-1", "x"} {
		t.Run(v, func(t *testing.T) {
			t.Setenv(contract.ScaleEnv, v)
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), contract.ScaleEnv) {
					t.Errorf("%s=%s: recovered %v, want a panic naming the variable", contract.ScaleEnv, v, r)
				}
			}()
			Scale(time.Second)
		})
	}
	t.Setenv(contract.ScaleEnv, "2.5")
	if got := Scale(2 * time.Second); got != 5*time.Second {
		t.Errorf("2s scaled by 2.5 is %v", got)
	}
}
