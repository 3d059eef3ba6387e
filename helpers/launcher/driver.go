// Package launcher is the driver between the suites and a launcher: a manifest
// (helpers/manifest) says how to build, start and drive one launcher, and the driver does it. The
// suites talk to launchers only through this package, so a launcher in any language plugs in with
// a manifest.
//
// It must not import the Ginkgo DSL, Gomega or fixtures/: the CLI side uses it too.
package launcher

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/classproof/classproof/helpers/base/cgroup"
	"github.com/classproof/classproof/helpers/base/confine"
	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/files"
	"github.com/classproof/classproof/helpers/base/identity"
	"github.com/classproof/classproof/helpers/base/proc"
	"github.com/classproof/classproof/helpers/manifest"
	"github.com/classproof/classproof/helpers/oracle"
)

// Driver drives one launcher as its manifest says. It is safe to share between specs.
type Driver struct {
	Manifest *manifest.Manifest
	Meaning  oracle.Meaning // background on this OS
	Harness  string         // the fixture harness binary
	// Writes are folders, beyond each launcher's own, that its processes may write (a bench's
	// work folder, where the harness's tools write).
	Writes []string
	// RunsAs is who its launcher processes (all but the build step's) run as:
	// identity.Launcher(), or, for the CLI's preflight of a run with a uid of its own
	// (identity.ForRun), that run's.
	RunsAs identity.Identity
	// Made says where {bin}'s binaries came from when no build step of this run made them (a
	// release archive's prebuilt launcher): a missing one's way out. "" for the build step's.
	Made string
	vals map[string]string
}

// New makes a driver without checking that the launcher is built (Build does that).
func New(m *manifest.Manifest, p manifest.Paths, harness string) (*Driver, error) {
	meaning, err := m.Meaning(runtime.GOOS)
	if err != nil {
		return nil, fmt.Errorf("target manifest %s: %w", m.Source, err)
	}
	vals := map[string]string{"kit": p.Kit, "bin": p.Bin, "cache": BuildCache(m, p)}
	if p.Repo != "" {
		vals["repo"] = p.Repo
	}
	vars, err := m.ResolveVars(vals)
	if err != nil {
		return nil, fmt.Errorf("target manifest %s: %w", m.Source, err)
	}
	for k, v := range vars {
		vals[k] = v
	}
	return &Driver{Manifest: m, Meaning: meaning, Harness: harness, RunsAs: identity.Launcher(), vals: vals}, nil
}

// Open makes a driver for an already built launcher and checks its binaries and the harness.
func Open(m *manifest.Manifest, p manifest.Paths, harness string) (*Driver, error) {
	d, err := New(m, p, harness)
	if err != nil {
		return nil, err
	}
	if err := d.CheckBinaries(); err != nil {
		return nil, err
	}
	if _, err := os.Stat(harness); err != nil {
		return nil, fmt.Errorf("fixture harness %q: %v", harness, err)
	}
	return d, nil
}

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

// CheckBinaries makes a missing launcher binary one clear error before any spec, instead of the
// same "no such file" in every spec.
func (d *Driver) CheckBinaries() error {
	var errs []string
	fields := map[string][]string{"daemon.run": d.Manifest.Daemon.Run, "session.direct": d.Manifest.Session.Direct, "session.hosted": d.Manifest.Session.Hosted,
		"spawn_spec": d.Manifest.SpawnSpec}
	if d.Manifest.Host != nil {
		fields["host.run"] = d.Manifest.Host.Run
	}
	if c := d.Manifest.Config; c != nil {
		fields["config.set"], fields["config.get"], fields["config.unset"] = c.Set, c.Get, c.Unset
	}
	if e := d.Manifest.Explain; e != nil {
		fields["explain.run"] = e.Run
	}
	names := make([]string, 0, len(fields))
	for f := range fields {
		names = append(names, f)
	}
	sort.Strings(names)
	// One line per binary, naming every field that runs it.
	var bins []string
	uses := map[string][]string{}
	for _, field := range names {
		argv := fields[field]
		if len(argv) == 0 {
			continue
		}
		got, err := manifest.ExpandList(argv[:1], d.vals)
		if err != nil {
			continue // depends on a per-launch value; checked when it runs
		}
		if uses[got[0]] == nil {
			bins = append(bins, got[0])
		}
		uses[got[0]] = append(uses[got[0]], field+"[0]")
	}
	for _, bin := range bins {
		if _, err := executable(d.RunsAs, bin, ""); err != nil {
			errs = append(errs, fmt.Sprintf("%s %q: %v%s", strings.Join(uses[bin], ", "), bin, err, d.wayOut(bin, err)))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("target manifest %s:\n  %s", d.Manifest.Source, strings.Join(errs, "\n  "))
	}
	return nil
}

// wayOut is what a binary's error in CheckBinaries tells the user to do: for a folder its
// launcher's user cannot pass, open it or run the launcher as root; for a binary missing or not
// executable, what should have made it (Made, or the build step), never a build step the kit did
// not run (a release archive's user has no Go); for a command looked up on PATH, nothing more
// (LookPath's error names its ways out: no build step makes a PATH tool).
func (d *Driver) wayOut(bin string, err error) string {
	var far *identity.UnreachableError
	switch {
	case !strings.Contains(bin, "/"):
		return ""
	case errors.As(err, &far):
		return fmt.Sprintf(" (open the folders on the way to pass through (chmod o+x), or set %s=0 to run the launcher as root (run.json then says it held root))", contract.LauncherUIDEnv)
	case d.Made != "":
		return " (" + d.Made + ")"
	case d.Manifest.Build != nil:
		return " (the build step should make it: " + strings.Join(d.Manifest.Build.Run, " ") + ")"
	}
	return ""
}

// executable is the file a launcher command's argv[0] names, as launcher processes find it: a
// bare name looked up on PATH as their user (identity.Identity.LookPath), a path checked that it
// names a file that user may run (a relative one from dir, where the command runs; "" for the
// kit's folder); the error in the OS's words, or naming what stops that user. A path is returned
// as written: exec resolves a relative one from the command's own folder.
func executable(id identity.Identity, path, dir string) (string, error) {
	if !strings.Contains(path, "/") {
		return id.LookPath(path)
	}
	p := path
	if !filepath.IsAbs(p) && dir != "" {
		p = filepath.Join(dir, p)
	}
	fi, err := os.Stat(p)
	if err != nil {
		return "", err
	}
	if fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("not executable (mode %v)", fi.Mode())
	}
	return path, id.MayRun(p)
}

// env is the kit's environment without the class variable (a CI runner that happens to set it
// must not decide what a spec proves), then extra layers, later winning.
func (d *Driver) env(token string, layers ...map[string]string) []string {
	var out []string
	for _, kv := range os.Environ() {
		// The kit's own variables are not the launcher's business (the ledger's path among them:
		// the harness gets it as an argument), except the run's token, which ties what the
		// launcher starts to this run (proc.Tied); nor are the CI runner's files and tokens.
		if k, _, _ := strings.Cut(kv, "="); k == d.Manifest.ClassEnv || contract.Own(k) || contract.RunnerOnly(k) {
			continue
		}
		out = append(out, kv)
	}
	if token != "" {
		out = append(out, contract.TokenEnv+"="+token)
	}
	for _, l := range layers {
		for k, v := range l {
			out = append(out, k+"="+v)
		}
	}
	return out
}
