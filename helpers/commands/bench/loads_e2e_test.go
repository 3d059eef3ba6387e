//go:build e2e

package bench_test

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/classproof/classproof/fixtures/targets"
	"github.com/classproof/classproof/helpers/base/proctable"
	"github.com/classproof/classproof/helpers/commands/bench"
)

// A run's loads die with it: while a small bench runs, a watcher reads the process table every
// few milliseconds and never finds more load processes alive than one run starts. Before, a
// launcher's loads were tracked in a set that refused to signal them (not its processes), and
// they piled up run after run: the later runs were measured under loads they did not name.
func TestARunsLoadsDieWithIt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the probe and the launcher and runs the bench")
	}
	target, err := targets.Resolve("", "linux-idle", nil, "")
	if err != nil {
		t.Fatal(err)
	}
	o := bench.Defaults()
	o.Target, o.N, o.Runs, o.Duration, o.JobMS = target, 2, 3, 200*time.Millisecond, 50
	o.Classes, o.OutDir, o.Log = []string{"default", "background"}, t.TempDir(), io.Discard

	ctx, cancel := context.WithCancel(context.Background())
	var most, looks int
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			if n := loadsAlive(t); n > most {
				most = n
			}
			looks++
			time.Sleep(5 * time.Millisecond)
		}
	}()
	_, err = bench.Bench(context.Background(), o)
	cancel()
	wg.Wait()
	if err != nil {
		t.Fatalf("the bench: %v", err)
	}
	if most > o.N || looks < 10 {
		t.Errorf("up to %d load processes alive at once in %d looks; one run starts %d", most, looks, o.N)
	}
	t.Logf("at most %d load processes alive at once in %d looks", most, looks)
}

// loadsAlive counts the live probe processes running "load" (a bench's probe is its own build,
// named probe, in a classproof-bench folder).
func loadsAlive(t *testing.T) int {
	all, err := proctable.Table()
	if err != nil {
		t.Error(err)
		return 0
	}
	n := 0
	for pid, in := range all {
		if args, err := proctable.Args(pid); err == nil && !in.Zombie && len(args) > 1 && args[1] == "load" &&
			strings.Contains(args[0], "classproof-bench") && strings.HasSuffix(args[0], "/probe") {
			n++
		}
	}
	return n
}
