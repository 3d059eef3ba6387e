package proc

// BecomeSubreaper does nothing on macOS, which has no subreaper: the kernel reparents an orphan to
// initproc (pid 1, XNU bsd/kern/kern_exit.c proc_exit) and it is collected there, not by the kit.
func BecomeSubreaper() error { return nil }

// Subreaper says whether BecomeSubreaper makes this process the reaper of its orphans.
const Subreaper = false
