package proc

// BecomeSubreaper does nothing on macOS, where launchd reaps orphans.
func BecomeSubreaper() error { return nil }
