package launcher

import (
	"context"
	"io"
	"os"
	"os/exec"

	"github.com/classproof/classproof/helpers/base/proc"
)

// BuildAsKit runs the build step of one of the kit's own launchers (an embedded manifest that
// builds from {kit}: refmux) the way the kit builds its suites: as the kit's own user, outside
// the sandbox, with the kit's Go build cache. It compiles the kit's own code, nothing a launcher
// author wrote, so the sandbox and the launcher's user guard nothing here, and sharing the cache
// means a cold run compiles the standard library once for the suites and the launcher, not twice.
// The build env's other settings hold (CGO_ENABLED, GOFLAGS); its GOCACHE, the sandbox's, does
// not. The binaries are then checked as after Build.
func (d *Driver) BuildAsKit(ctx context.Context, log io.Writer) error {
	if d.Manifest.Build == nil {
		return nil
	}
	x, err := d.expandBuild(d.vals)
	if err != nil {
		return err
	}
	delete(x.Env, "GOCACHE")
	logBuild(log, d.Manifest.Name, x.Dir, x.Argv)
	cmd := exec.CommandContext(ctx, x.Argv[0], x.Argv[1:]...)
	proc.Command(cmd) // ctx's end kills the build's process group
	cmd.Dir = x.Dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	for k, v := range x.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out TailWriter
	cmd.Stdout = io.MultiWriter(&out, Capped(log, LogBytes, "the build step"))
	cmd.Stderr = cmd.Stdout
	if err := cmd.Run(); err != nil {
		return &BuildError{Manifest: d.Manifest.Source, Argv: x.Argv, Dir: x.Dir, Output: out.String(), Err: err}
	}
	return d.CheckBinaries()
}
