package mutants

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/classproof/classproof/helpers/manifest"
)

// A cell that cannot run stops the matrix with its own words: the cut it makes in the other
// cells is no interrupt (a newcomer saw "interrupted ... context canceled" for a manifest that
// declared no variant var). A real interrupt still says so.
func TestAFailedCellIsTheMatrixError(t *testing.T) {
	o := Options{Jobs: 2, Targets: []*manifest.Resolved{{}}}
	list := []job{{Value: "ok"}, {Value: "bad"}, {Value: "later"}}
	each := func(ctx context.Context, _ Options, _ *manifest.Resolved, v string) (Cell, error) {
		if v == "bad" {
			return Cell{}, errors.New(`var "variant=bad": target mylauncher declares no var "variant"`)
		}
		<-ctx.Done() // cut short by the failed cell
		return Cell{}, ctx.Err()
	}
	_, err := runJobs(context.Background(), o, list, each)
	if err == nil || errors.Is(err, ErrInterrupted) || !strings.Contains(err.Error(), `declares no var "variant"`) {
		t.Fatalf("matrix error %v: want the failed cell's cause", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := runJobs(ctx, o, list, each); !errors.Is(err, ErrInterrupted) {
		t.Errorf("an interrupted matrix: %v", err)
	}
}

// A build variant needs the var that builds it; an injected fault builds nothing.
func TestCanBuildNamesAMissingVar(t *testing.T) {
	tg := &manifest.Resolved{Ref: "my.yaml", Manifest: &manifest.Manifest{Name: "mylauncher", Vars: map[string]string{}}}
	err := CanBuild(tg, "variant", []Value{{Name: "noclass"}})
	if err == nil || !strings.Contains(err.Error(), `declares no var "variant"`) || !strings.Contains(err.Error(), "--inject alone") {
		t.Errorf("a build variant without its var: %v", err)
	}
	if err := CanBuild(tg, "variant", []Value{{Name: InjectPrefix + "setpriority"}}); err != nil {
		t.Errorf("an injected fault needs no var: %v", err)
	}
	tg.Manifest.Vars["variant"] = ""
	if err := CanBuild(tg, "variant", []Value{{Name: "noclass"}}); err != nil {
		t.Errorf("declared: %v", err)
	}
}

// With one slot, a cell waits only while its slot stands idle, not for the queue ahead of it:
// the waits add up to less than the wall (a newcomer's matrix summed 27315 s for 1494 s).
func TestWaitsAddUpToNoMoreThanTheWall(t *testing.T) {
	o := Options{Jobs: 1, Targets: []*manifest.Resolved{{}}}
	list := []job{{Value: "a"}, {Value: "b"}, {Value: "c"}, {Value: "d"}}
	each := func(context.Context, Options, *manifest.Resolved, string) (Cell, error) {
		time.Sleep(20 * time.Millisecond) // a cell's own time, which the next one queues behind
		return Cell{}, nil
	}
	began := time.Now()
	cells, err := runJobs(context.Background(), o, list, each)
	if err != nil {
		t.Fatal(err)
	}
	wall, waits := time.Since(began).Seconds(), 0.0
	for _, c := range cells {
		waits += c.Timing.Wait
	}
	if waits >= wall/2 {
		t.Errorf("the waits add up to %.3fs in a %.3fs run with one slot: they count the queue", waits, wall)
	}
}
