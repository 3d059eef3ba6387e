//go:build !linux

package sandbox

// ForRun: elsewhere a kit never runs its launcher as another user (see LauncherIdentity), so a
// run has no uid of its own.
func ForRun() (Identity, func() (leaks, left, failed []string), error) {
	return BuildIdentity(), func() ([]string, []string, []string) { return nil, nil, nil }, CheckLauncherIdentity()
}
