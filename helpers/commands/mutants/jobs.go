package mutants

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/classproof/classproof/helpers/manifest"
)

// job is one cell to run: the variant (Value; empty for the reference) on target Target. Index
// is its place in the full table, variant by variant, target by target (-1: the baseline).
type job struct {
	Index  int
	Value  string
	Target int
}

// jobs lists every cell of the table, in the table's order.
func jobs(run []Value, targets int) []job {
	var out []job
	for i, v := range run {
		for j := 0; j < targets; j++ {
			out = append(out, job{Index: i*targets + j, Value: v.Name, Target: j})
		}
	}
	return out
}

// runs is how a job's cell is run: cell, or one step of byRow.
type runs func(ctx context.Context, o Options, t *manifest.Resolved, value string) (Cell, error)

// runJobs runs each job with each, o.Jobs at a time, and returns their cells in the jobs'
// order; the first error stops the rest from starting.
func runJobs(ctx context.Context, o Options, list []job, each runs) ([]Cell, error) {
	out := make([]Cell, len(list))
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Each slot carries the time it became free: a cell's wait is the time its slot stood idle
	// before it began, so the waits of one slot never overlap and their sum is no more than the
	// slots times the wall (counted from the round's start, every cell's wait was the whole queue
	// ahead of it: 27315 s summed for a 1494 s run with one slot).
	slots := max(o.Jobs, 1)
	sem := make(chan time.Time, slots)
	for range slots {
		sem <- time.Now()
	}
	for i, jb := range list {
		var freed time.Time
		select {
		case freed = <-sem:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		wait := time.Since(freed)
		go func() {
			defer wg.Done()
			defer func() { sem <- time.Now() }()
			began := time.Now()
			c, err := each(ctx, o, o.Targets[jb.Target], jb.Value)
			c.Timing.Wait, c.Timing.Total = wait.Seconds(), time.Since(began).Seconds()
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				cancel()
			}
			out[i] = c
		}()
	}
	wg.Wait()
	if parent.Err() != nil {
		// Cells cut short, and none started after: no verdict can be read from them.
		return nil, fmt.Errorf("%w: %v", ErrInterrupted, context.Cause(parent))
	}
	if len(errs) > 0 {
		// The first cell's error is the cause; the others' are mostly the cut it made.
		return nil, fmt.Errorf("%w (the matrix stopped there: no matrix was written)", errs[0])
	}
	return out, nil
}

// ErrInterrupted is a matrix stopped before every cell ran: nothing was written, nothing caught.
var ErrInterrupted = errors.New("interrupted: the matrix is incomplete; no matrix was written")
