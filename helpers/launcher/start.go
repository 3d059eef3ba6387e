package launcher

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/classproof/classproof/helpers/base/actas"
	"github.com/classproof/classproof/helpers/base/confine"
	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/faults"
	"github.com/classproof/classproof/helpers/base/files"
	"github.com/classproof/classproof/helpers/base/identity"
	"github.com/classproof/classproof/helpers/base/proc"
	"github.com/classproof/classproof/helpers/manifest"
)

// start is the one way the kit starts a launcher process: its build step, daemon, host and
// every client command (sessions, config, explain, spawn specs), wherever the kit builds or runs
// it (run's preflight, the suites' own fallback, red/green's sides, bench, dist, doctor). Here
// is where containment lives (proc.Set.Contain): a process group of its own, killed as a whole
// when ctx ends, and on Linux the set's cgroup, which nothing the process forks can leave. Its
// output goes to out through a pipe the kit drains itself, never to a file of the kit's: a
// launcher process that outlives its spec then holds no stdout or stderr of the kit's, and
// nothing it writes after the run can reach a CI runner's log.
//
// It starts inside the sandbox (helpers/base/confine): the process and everything it starts may write
// only below may's folders, made before it starts; the kit's cache, source and the run's verdict
// files are never among them.
func (d *Driver) start(ctx context.Context, set *proc.Set, role string, argv []string, dir string, env []string, out io.Writer, c *confined, files ...*os.File) (*exec.Cmd, error) {
	bin, err := program(role, argv, c)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, bin, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Dir, cmd.Env, cmd.ExtraFiles = dir, env, files // files: fd 3 on (a burst's held clients)
	proc.Command(cmd)                                  // ctx's end kills the group; Wait gives up on a pipe held after the exit
	if err := set.Contain(cmd); err != nil {
		return nil, err
	}
	// A root kit's launcher runs as another user (identity.Identity): no root's power over the
	// machine or the kit, whatever the sandbox allows it to write.
	cmd.SysProcAttr.Credential = c.id.Credential()
	// Hidden behind a plain writer, even an *os.File gets a pipe from os/exec (see exec.Cmd.Stdout).
	cmd.Stdout = drained{out}
	cmd.Stderr = cmd.Stdout
	if err := c.sp.Start(cmd); err != nil {
		return nil, fmt.Errorf("starting %s %q: %w", role, strings.Join(argv, " "), err)
	}
	// Tracked while it runs: a cleanup (an interrupt mid-command) kills its group too.
	set.TrackOwned(d.Manifest.Name+" "+role, cmd.Process.Pid)
	return cmd, nil
}

// program is the file start runs for argv. A bare name is found as launcher processes find it,
// not as the kit would (a root kit's PATH may lead into root's home first); argv[0] stays as the
// manifest wrote it.
func program(role string, argv []string, c *confined) (string, error) {
	bin := argv[0]
	if !strings.Contains(bin, "/") {
		var err error
		if bin, err = c.id.LookPath(bin); err != nil {
			return "", fmt.Errorf("starting %s %q: %w", role, strings.Join(argv, " "), err)
		}
	}
	return bin, nil
}

type drained struct{ w io.Writer }

func (d drained) Write(p []byte) (int, error) { return d.w.Write(p) }

// confined is what a group of launcher processes may write, who they run as, the spawner that
// starts them, and the fault it gives them (a launcher instance's, where the run injects one).
type confined struct {
	may   confine.Policy
	id    identity.Identity
	sp    *confine.Spawner
	fault *faults.Injector // nil: none; closed by sp.Close
}

// newConfined makes may's folders (a folder must exist to be allowed), handing each it made to id,
// the user the processes run as, and its spawner; the caller closes c.sp. A folder that was there
// already is left as it is: the kit made it for the launcher and handed it over
// (launcher.privateDir), or it is the user's, declared under writes, and theirs to make writable
// for it.
func newConfined(id identity.Identity, may confine.Policy) (*confined, error) {
	for _, w := range may.Dirs {
		if fi, err := os.Stat(w); err == nil {
			// A folder declared under writes that is there already stays as it is; one the
			// launcher's user cannot write would fail it as a read-only folder does, so it is
			// named now. (A run's own uid is new each run: such a folder is open to all, 1777.)
			if id.Other() && !id.MayWrite(fi) {
				return nil, fmt.Errorf("%s, which the launcher may write, is there already and uid %d, which launcher processes run as, cannot write it (owner uid %d, mode %v): make it writable by all with the sticky bit (chmod 1777), or leave it out and the kit makes it for each run",
					w, id.Uid, identity.Owner(fi), fi.Mode().Perm())
			}
			continue
		}
		if swap := id.MaySwap(w); swap != "" {
			// The launcher's user may change what w resolves to (a symlink planted in {cache}
			// by an earlier build, or by a spec's process while the kit makes it): it is made
			// as that user, who gets no more than it could make itself.
			if err := actas.Do(id.Uid, id.Gid, func() error { return os.MkdirAll(w, 0o755) }); err != nil {
				return nil, fmt.Errorf("making %s, which the launcher may write, as its user (uid %d, who may change names in %s): %w", w, id.Uid, swap, err)
			}
			continue
		}
		if err := os.MkdirAll(w, id.DirMode()); err != nil {
			return nil, fmt.Errorf("making %s, which the launcher may write: %w", w, err)
		}
		if err := id.Give(w); err != nil {
			return nil, err
		}
	}
	return &confined{may: may, id: id, sp: confine.NewSpawner(may)}, nil
}

// writes expands a manifest's writes list (field names it in errors).
func writes(field string, list []string, vals map[string]string) ([]string, error) {
	out, err := manifest.ExpandList(list, vals)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", field, err)
	}
	for i, w := range out {
		if !filepath.IsAbs(w) {
			return nil, fmt.Errorf("%s: %q is not an absolute path", field, list[i])
		}
		out[i] = filepath.Clean(w)
		// The cache folder holds the kit's compiled suites and every target's {cache}: a rule
		// that reaches into it, or holds it, by name or through a symlink, would let this
		// target write what the kit or another target runs.
		real, base := files.Resolved(out[i]), files.Resolved(identity.ForBuild().CacheBase())
		if own := files.Resolved(vals["cache"]); (files.Within(real, base) || files.Within(base, real)) && !files.Within(real, own) {
			return nil, fmt.Errorf("%s: %q is %s, which is or holds the kit's cache folder %s (the kit's compiled suites, every target's {cache}): a target may write only its own {cache} there", field, list[i], real, base)
		}
	}
	return out, nil
}

// refused is, when output names writes the sandbox refused, what to say about them: the paths,
// and the manifest key that would allow them; on macOS, a launcher's own Seatbelt profile that
// the kit's refused, which no key changes.
func (d *Driver) refused(output string, c *confined, key string) string {
	if confine.Current().Kind == "seatbelt" {
		if why := confine.Nested(output); why != "" {
			return "\nclassproof: " + why
		}
	}
	var paths, unreached []string
	for _, p := range confine.Denied(output, c.may) {
		// A root kit's launcher runs as another user: what it cannot reach, no key allows.
		err := c.id.Reaches(p)
		if errors.Is(err, os.ErrNotExist) {
			err = c.id.Reaches(filepath.Dir(p)) // a file it would make
		}
		if err != nil {
			unreached = append(unreached, err.Error())
		} else {
			paths = append(paths, p)
		}
	}
	if len(unreached) > 0 {
		return fmt.Sprintf("\nclassproof: %s: put what the launcher reads and writes where that user reaches it, or set %s=0 to run the launcher as root (run.json then says it held root)",
			strings.Join(unreached, "; "), contract.LauncherUIDEnv)
	}
	if len(paths) == 0 {
		return ""
	}
	return fmt.Sprintf("\nclassproof: the sandbox (%s) refused writes to %s: outside what this process may write (%s); if the launcher needs them, declare the folders under %s in %s",
		confine.Current(), strings.Join(paths, ", "), strings.Join(append(append([]string(nil), c.may.Dirs...), c.may.Files...), ", "), key, d.Manifest.Source)
}

// BuildCache is {cache} for the target whose build step is m's, with its sources at p: a folder
// kept between runs that the build may write (a compiler's cache; the build's HOME is below it),
// beside the kit's own cache folder, never inside it. A target's build writes the Go or cargo
// cache every later build of it trusts, so each target has its own (issue 53: a hostile target's
// build rewrote another's Go cache entry and a known-red build passed). A target is its build
// step as written, the kit and the repository ({repo}'s git common folder, which every worktree
// of it shares): red and green sides, bisect's commits, a variant's vars and a manifest copied
// elsewhere keep a warm cache; another repository or another build step never shares it. The
// folders above the leaf are the kit's (newConfined makes them, 0711); only the leaf is the
// launcher user's.
func BuildCache(m *manifest.Manifest, p manifest.Paths) string {
	h := sha256.New()
	b, _ := json.Marshal(m.Build) // plain strings, slices and maps: it cannot fail
	for _, part := range [][]byte{b, []byte(p.Kit), []byte(repoIdentity(p.Repo))} {
		fmt.Fprintf(h, "%d:%s", len(part), part)
	}
	return filepath.Join(buildCaches(), fmt.Sprintf("uid-%d", identity.ForBuild().Uid), hex.EncodeToString(h.Sum(nil)[:8]))
}

// buildCaches is the folder of every target's {cache}.
func buildCaches() string {
	return filepath.Join(identity.ForBuild().CacheBase(), "classproof-launchers")
}

// repoIdentity is what names the repository at repo whichever worktree of it repo is: its git
// common folder (a worktree's .git file says where its git folder is, whose commondir file names
// the common one), else repo itself. A worktree is taken as one only where its git folder points
// back at it (gitdir/gitdir names repo/.git): a .git file naming another repository's folder
// would otherwise give a hostile tree that repository's {cache}.
func repoIdentity(repo string) string {
	if repo == "" {
		return ""
	}
	git := filepath.Join(repo, ".git")
	fi, err := os.Lstat(git)
	switch {
	case err != nil:
		return repo
	case fi.IsDir():
		// Resolved, as a worktree's common folder is: a repository reached through a symlink
		// (macOS's /var/folders is /private/var/folders) is one repository for its worktrees.
		return files.Resolved(git)
	case !fi.Mode().IsRegular():
		return repo
	}
	gitdir, ok := strings.CutPrefix(strings.TrimSpace(pointer(git)), "gitdir: ")
	if !ok {
		return repo
	}
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(repo, gitdir)
	}
	if back := strings.TrimSpace(pointer(filepath.Join(gitdir, "gitdir"))); back == "" || files.Resolved(back) != files.Resolved(git) {
		return repo
	}
	common := strings.TrimSpace(pointer(filepath.Join(gitdir, "commondir")))
	if common == "" {
		return files.Resolved(gitdir)
	}
	if !filepath.IsAbs(common) {
		common = filepath.Join(gitdir, common)
	}
	return files.Resolved(common)
}

// pointer is a git pointer file's text (bounded, a regular file only: a FIFO planted there must
// not hold the run), "" if it cannot be read.
func pointer(path string) string {
	b, _ := files.ReadClaim(path, 4096)
	return string(b)
}
