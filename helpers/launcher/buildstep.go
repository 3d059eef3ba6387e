package launcher

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/classproof/classproof/helpers/base/cgroup"
	"github.com/classproof/classproof/helpers/base/confine"
	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/files"
	"github.com/classproof/classproof/helpers/base/identity"
	"github.com/classproof/classproof/helpers/base/proc"
	"github.com/classproof/classproof/helpers/manifest"
)

// Build runs the manifest's build step, if it has one, with its output going to log.
func (d *Driver) Build(ctx context.Context, log io.Writer) error {
	b := d.Manifest.Build
	if b == nil {
		return nil
	}
	// The build step runs as the user's choice, the same every run: {cache} is that user's.
	id := identity.ForBuild()
	vals, unstage, err := d.reachableKit(log)
	if err != nil {
		return err
	}
	defer unstage()
	x, err := d.expandBuild(vals)
	if err == nil {
		// The launcher's user runs the build: its command must be one that user can run.
		err = d.reachable(x, vals)
	}
	if err != nil {
		return err
	}
	logBuild(log, d.Manifest.Name, x.Dir, x.Argv)
	may, env, tmp, err := d.buildWrites(x.Env, vals)
	defer os.RemoveAll(tmp)
	if err != nil {
		return err
	}
	// What is kept of the build's output for the error is its tail: a build that prints without
	// end must not cost the kit its memory.
	var out TailWriter
	set := proc.NewSet()
	// A token of the build's own: without a cgroup, what the build left outside its group is
	// found by it (never the run's: that would name every launcher of the run).
	token := proc.NewRunToken()
	if err := id.Give(vals["bin"], tmp); err != nil {
		return err
	}
	c, err := newConfined(id, may)
	if err != nil {
		return err
	}
	defer c.sp.Close()
	cmd, err := d.start(ctx, set, "build step", x.Argv, x.Dir, d.env(token, env), io.MultiWriter(&out, Capped(log, LogBytes, "the build step")), c)
	if err == nil {
		err = cmd.Wait()
		// What it left running (a compiler server, a setsid child) dies with the build: a run
		// never goes on beside it, and it is named here.
		set.TrackGroup("the build step (left running)", cmd.Process.Pid)
	}
	d.endBuild(set, token, log)
	// What the build made is the kit's once it ends: no later launcher process rewrites it.
	if rerr := id.Reclaim(vals["bin"]); rerr != nil {
		return rerr
	}
	if err != nil {
		said := out.String()
		return &BuildError{Manifest: d.Manifest.Source, Argv: x.Argv, Dir: x.Dir, Output: said + d.refused(said, c, "build.writes"), Err: err}
	}
	return d.CheckBinaries()
}

// reachableKit is the placeholder values the build step runs with: d's, or, when the launcher's
// user cannot reach {kit} (a root kit in /root, or in Go's module cache below it), {kit} pointing
// at a copy of the kit's files made for the build, removed by the returned func.
func (d *Driver) reachableKit(log io.Writer) (map[string]string, func(), error) {
	id := identity.ForBuild()
	kit := d.vals["kit"]
	why := id.Reaches(kit)
	if why == nil || kit == "" {
		return d.vals, func() {}, nil
	}
	stage, err := os.MkdirTemp("", "classproof-kit-")
	if err == nil {
		err = copyTree(kit, stage)
	}
	if err != nil {
		os.RemoveAll(stage)
		return nil, nil, fmt.Errorf("copying the kit %s where the launcher's user can read it: %w", kit, err)
	}
	fmt.Fprintf(log, "classproof: %v; the build step reads a copy of the kit at %s\n", why, stage)
	vals := map[string]string{}
	for k, v := range d.vals {
		vals[k] = v
	}
	vals["kit"] = stage
	return vals, func() { os.RemoveAll(stage) }, nil
}

// copyTree copies the regular files and folders below src (not .git) into dst, readable by all:
// a copy for another user to read.
func copyTree(src, dst string) error {
	if err := os.Chmod(dst, 0o755); err != nil {
		return err
	}
	return filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		switch {
		case rel == ".":
			return nil
		case e.IsDir() && e.Name() == ".git":
			return filepath.SkipDir
		case e.IsDir():
			return os.Mkdir(to, 0o755)
		case !e.Type().IsRegular():
			return nil
		}
		fi, err := e.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, fi.Mode().Perm()|0o444)
	})
}

// buildWrites is what the build step may write, {bin}, {cache}, a TMPDIR of its own (made here;
// the caller removes it) and the manifest's build.writes, and its environment: the kit's settings
// and then the expanded build.env, declared.
func (d *Driver) buildWrites(declaredEnv map[string]string, vals map[string]string) (may confine.Policy, env map[string]string, tmp string, err error) {
	declared, err := writes("build.writes", d.Manifest.Build.Writes, vals)
	if err != nil {
		return may, nil, "", fmt.Errorf("target manifest %s: %w", d.Manifest.Source, err)
	}
	if err := kitsCacheFolders(vals["cache"]); err != nil {
		return may, nil, "", err
	}
	if tmp, err = os.MkdirTemp("", "classproof-build-"); err != nil {
		return may, nil, "", err
	}
	may = confine.Policy{Dirs: append([]string{vals["bin"], vals["cache"], tmp}, declared...)}
	env = map[string]string{"TMPDIR": tmp}
	if identity.ForBuild().Other() {
		// The kit's home is root's, which the launcher's user cannot reach: its build tools keep
		// their caches and settings (Go's module cache, cargo's registry) in a home of its own,
		// kept with {cache} between runs (newConfined makes it).
		env["HOME"] = filepath.Join(vals["cache"], "home")
		may.Dirs = append(may.Dirs, env["HOME"])
	}
	maps.Copy(env, declaredEnv)
	return may, env, tmp, nil
}

// kitsCacheFolders makes the folders above a target's {cache} as the kit's, passable by the
// launcher's user and no more, checked first: newConfined makes a missing folder whose chain that user
// may change as that user, and a first build on a fresh machine (a unit test's) left the kit's
// cache folder itself uid 65534's, which every later run then refused.
func kitsCacheFolders(cache string) error {
	above := filepath.Dir(cache)
	if err := files.TrustedPath(above); err != nil {
		return fmt.Errorf("the folder of every target's {cache}: %w", err)
	}
	if err := os.MkdirAll(above, identity.ForBuild().DirMode()); err != nil {
		return fmt.Errorf("making the folder of every target's {cache}: %w", err)
	}
	return files.TrustedPath(above) // a name swapped in while it was made
}

// endBuild kills what the build step left running and names it in log.
func (d *Driver) endBuild(set *proc.Set, token string, log io.Writer) {
	var left []string
	for _, e := range set.Entries() {
		if !e.Owned && e.Start != 0 {
			left = append(left, fmt.Sprintf("pid %d (%s)", e.Pid, e.Exe))
		}
	}
	if escaped := set.KillAll(buildGrace); escaped != nil {
		left = append(left, escaped.Error())
	}
	if cgroup.Contained().Cgroup == nil {
		swept, _ := proc.SweepToken(token)
		left = append(left, swept...)
	}
	if len(left) > 0 {
		fmt.Fprintf(log, "\nclassproof: the build step of target %s left running, killed now: %s\n", d.Manifest.Name, strings.Join(left, "; "))
	}
}

// buildGrace bounds the wait for what a build left running to die once killed.
const buildGrace = 10 * time.Second

// BuildError is a failed build step; the red/green prover tells it apart from a failing spec.
type BuildError struct {
	Manifest string
	Argv     []string
	Dir      string
	Output   string
	Err      error
}

func (e *BuildError) Error() string {
	return fmt.Sprintf("target manifest %s: build step %q in %s failed: %v\n%s", e.Manifest, strings.Join(e.Argv, " "), e.Dir, e.Err, e.Output)
}

// logBuild says which command the build step runs, expanded: the manifest's template would hide
// a placeholder that expanded to nothing (an empty {repo}).
func logBuild(log io.Writer, name, dir string, argv []string) {
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = a
		if a == "" || strings.ContainsAny(a, " \t\n'\"") {
			quoted[i] = strconv.Quote(a)
		}
	}
	fmt.Fprintf(log, "classproof: building target %s in %s: %s\n", name, dir, strings.Join(quoted, " "))
}

// expandBuild is the build step expanded with vals, once for all its uses: its folder, when
// the manifest gives none, is {kit}.
func (d *Driver) expandBuild(vals map[string]string) (manifest.Expanded, error) {
	x, err := d.Manifest.Expand(manifest.Section("build"), *d.Manifest.Build, vals)
	x.Dir = cmp.Or(x.Dir, vals["kit"])
	return x, err
}

// reachable says whether the launcher's user can run the expanded build step x: its command, its
// folder and the way to {bin}; an error names what stops it.
func (d *Driver) reachable(x manifest.Expanded, vals map[string]string) error {
	id := identity.ForBuild()
	if _, err := executable(id, x.Argv[0], x.Dir); err != nil {
		return &BuildError{Manifest: d.Manifest.Source, Argv: x.Argv, Dir: x.Dir, Err: fmt.Errorf("build.run[0]: %w", err)}
	}
	// {bin} is handed to the launcher's user for the build: it must pass the folders on the way.
	for what, err := range map[string]error{"folder": id.Reaches(x.Dir), "{bin}": id.Passes(filepath.Dir(vals["bin"]))} {
		if err != nil {
			return &BuildError{Manifest: d.Manifest.Source, Argv: x.Argv, Dir: x.Dir, Err: fmt.Errorf("the build step's %s is out of its reach: %w; make the folders on the way open to pass through (chmod o+x), or set %s=0 to build and run the launcher as root (run.json then says it held root)", what, err, contract.LauncherUIDEnv)}
		}
	}
	return nil
}
