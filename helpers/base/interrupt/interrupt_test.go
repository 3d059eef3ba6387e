package interrupt

import (
	"context"
	"syscall"
	"testing"
	"time"
)

func TestTheFirstSignalEndsTheContextAndTheSecondClosesAgain(t *testing.T) {
	ctx, stop := Notify(context.Background())
	defer stop()
	again := Again(ctx)
	if again == nil {
		t.Fatal("Again is nil for a context Notify made")
	}
	_ = syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the first SIGINT did not end the context within 5s")
	}
	select {
	case <-again:
		t.Fatal("Again closed after one signal: the first signal would kill the run")
	default:
	}
	_ = syscall.Kill(syscall.Getpid(), syscall.SIGTERM)
	select {
	case <-again:
	case <-time.After(5 * time.Second):
		t.Fatal("the second signal did not close Again within 5s")
	}
}

func TestAContextNotifyDidNotMakeHasNoAgain(t *testing.T) {
	if Again(context.Background()) != nil {
		t.Fatal("Again of a plain context must be nil (never ready)")
	}
}
