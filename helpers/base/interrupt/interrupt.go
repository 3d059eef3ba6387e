// Package interrupt is the one place the CLI listens for SIGINT and SIGTERM. The first ends the
// context every command runs under (a build or compile stops, the suites get SIGINT and run their
// cleanups); a second one closes Again, which the run's supervisor answers with SIGKILL. One
// listener, so one Ctrl-C is counted once, however many layers wait on it.
//
// CLI side: nothing of the kit (ci/layers.rules, level 1).
package interrupt

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

type againKey struct{}

// Notify returns parent, ended by the first SIGINT or SIGTERM, and stop, which stops listening.
func Notify(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	again := make(chan struct{})
	ctx = context.WithValue(ctx, againKey{}, (<-chan struct{})(again))
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		n := 0
		for {
			select {
			case <-sigs:
				if n++; n == 1 {
					cancel()
				} else if n == 2 {
					close(again)
				}
			case <-done:
				return
			}
		}
	}()
	return ctx, func() { signal.Stop(sigs); close(done); cancel() }
}

// Again is closed by a second signal after Notify made ctx; nil (never ready) for a context
// Notify did not make, such as a test's.
func Again(ctx context.Context) <-chan struct{} {
	ch, _ := ctx.Value(againKey{}).(<-chan struct{})
	return ch
}
