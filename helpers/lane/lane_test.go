package lane

import (
	"github.com/classproof/classproof/helpers/contract"
	"strings"
	"testing"
	"time"
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
