package bench

// describeDir on macOS: the scheduler is not a thing one reads there (I/O throttling follows the
// process's policy, not a block-layer scheduler). Compiled, not run on macOS here.
func describeDir(dir string) (string, string) {
	return dir, "macOS I/O throttling"
}
