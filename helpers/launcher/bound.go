package launcher

import (
	"context"
	"time"
)

// askBound is the context a client command runs under, and its bound as last reckoned. A correct
// launcher may serve one request at a time, and not in the order asked: a command may wait for
// each other command of this instance under way when it was asked for or asked for while it
// waits, so its bound is a lone command's times one more than those, and grows while it waits (8
// sessions at once from a serial daemon on a loaded runner once took the last past 10 s). Still a
// bound: the kit asks for every command, and one alone keeps the one timeout. A command held for a
// burst (released not nil) is timed from the release: the hold is the kit's, bounded on its own.
func (l *Instance) askBound(released <-chan struct{}) (ctx context.Context, done func(), bound func() time.Duration) {
	waiting := int64(l.asking.Add(1))
	first := l.asked.Add(1)
	start := time.Now()
	bound = func() time.Duration { return l.timeout * time.Duration(waiting+l.asked.Load()-first) }
	ctx, cancel := context.WithCancel(l.ctx)
	stop := make(chan struct{})
	go func() {
		if released != nil {
			select {
			case <-released:
				start = time.Now()
			case <-stop:
				return
			}
		}
		for {
			left := time.Until(start.Add(bound()))
			if left <= 0 {
				cancel()
				return
			}
			t := time.NewTimer(left)
			select {
			case <-stop:
				t.Stop()
				return
			case <-t.C:
			}
		}
	}()
	return ctx, func() { close(stop); cancel(); l.asking.Add(-1) }, bound
}
