package proc

import "golang.org/x/sys/unix"

// BecomeSubreaper makes the calling process the reaper of its orphaned descendants. A harness's
// tools outlive the harness for a moment when the group is killed; without this they are
// reparented to pid 1, which in a container may never reap them, and they linger as zombies.
func BecomeSubreaper() error { return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) }

// Subreaper says whether BecomeSubreaper makes this process the reaper of its orphans.
const Subreaper = true
