package class

// addPlatform has nothing to add on macOS: ps -o pri is the only outside view of PRIO_DARWIN_BG
// (getpriority(PRIO_DARWIN_PROCESS, pid) reads only the caller's own state, XNU kern_resource.c).
func addPlatform(o *Observation) error { return nil }
