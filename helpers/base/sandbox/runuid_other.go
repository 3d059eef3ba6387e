//go:build !linux

package sandbox

import "time"

// ForRun: elsewhere a kit never runs its launcher as another user (see LauncherIdentity), so a
// run has no uid of its own.
func ForRun() (Identity, func() (leaks, left []string), error) {
	return BuildIdentity(), func() ([]string, []string) { return nil, nil }, CheckLauncherIdentity()
}

// Bound: no run has a uid of its own here.
func (id Identity) Bound() error { return nil }

// Watch: no run has a uid of its own here.
func (id Identity) Watch(Limits, time.Duration) func() (Peak, []string) {
	return func() (Peak, []string) { return Peak{}, nil }
}
