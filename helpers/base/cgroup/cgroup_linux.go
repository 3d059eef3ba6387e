package cgroup

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/files"
	"github.com/classproof/classproof/helpers/base/proctable"
)

// The kit writes the kernel's cgroup v2 interface directly (Documentation/admin-guide/cgroup-v2.rst):
// mkdir, cgroup.procs, cgroup.kill (Linux 5.14), cgroup.events, and clone3's CLONE_INTO_CGROUP
// (Linux 5.7) through os/exec's SysProcAttr.CgroupFD, so a launcher process is a member from
// its first instruction, never moved in after a fork it could race.

// openRoot opens the run's cgroup the CLI handed down, or makes one below this process's own.
func openRoot() (*Cgroup, bool, error) {
	mount, own, err := ownCgroup()
	if err != nil {
		return nil, false, err
	}
	p := contract.Current().Cgroup
	if p == Off {
		return nil, false, fmt.Errorf("turned off ($%s=%s)", contract.CgroupEnv, Off)
	}
	if p != "" {
		rel, ok := strings.CutPrefix(p, mount)
		if !ok || !strings.HasPrefix(rel, "/") {
			return nil, false, fmt.Errorf("$%s %q is not below the cgroup v2 mount %s", contract.CgroupEnv, p, mount)
		}
		cg, err := openCgroup(mount, rel, false)
		return cg, false, err
	}
	sweepStale(mount, own)
	cg, err := makeCgroup(mount, filepath.Join(own, ownerCgroup+strings.ReplaceAll(proctable.Supervisor(), " ", "-")))
	return cg, true, err
}

// ownerCgroup begins the name of a run's cgroup; its owner (Supervisor, spaces as dashes) follows.
const ownerCgroup = "classproof-"

// sweepStale ends the cgroups of classproof processes that are provably gone (killed before they
// could close theirs): what is still in one is a crashed run's leak, and nobody else would end it.
// Only a cgroup whose name gives its owner's pid namespace, this one, is judged: a kit in another
// namespace (a container's CI job on this host's cgroup tree) is alive whatever its pid says here,
// and an older kit's name gives no namespace. Those are left alone.
func sweepStale(mount, own string) {
	ds, _ := os.ReadDir(filepath.Join(mount, own))
	for _, d := range ds {
		owner, ok := strings.CutPrefix(d.Name(), ownerCgroup)
		owner = strings.ReplaceAll(owner, "-", " ")
		if _, named := proctable.OwnerNS(owner); !ok || !named || !d.IsDir() || proctable.Exists(owner) {
			continue
		}
		if cg, err := openCgroup(mount, filepath.Join(own, d.Name()), true); err == nil {
			// A crashed run's processes: none is our child to wait for, none is on its way out.
			_, _ = cg.close(0, func() {})
		}
	}
}

// ownCgroup finds the cgroup v2 mount (/proc/self/mountinfo, fstype cgroup2) and this process's
// cgroup in it (/proc/self/cgroup's "0::" line; on a hybrid host v1 hierarchies are listed too).
func ownCgroup() (mount, own string, err error) {
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return "", "", err
	}
	mroot := ""
	for _, line := range strings.Split(string(mi), "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if ok && len(f) >= 5 && len(g) >= 1 && g[0] == "cgroup2" {
			mroot, mount = f[3], f[4]
			break
		}
	}
	if mount == "" {
		return "", "", errors.New("no cgroup v2 is mounted (/proc/self/mountinfo has no cgroup2)")
	}
	cg, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", "", err
	}
	sc := bufio.NewScanner(bytes.NewReader(cg))
	for sc.Scan() {
		if rel, ok := strings.CutPrefix(sc.Text(), "0::"); ok {
			// A mount of a subtree (a container's cgroup namespace shows "/" for its own root).
			rel = strings.TrimPrefix(rel, strings.TrimSuffix(mroot, "/"))
			return mount, "/" + strings.TrimPrefix(rel, "/"), nil
		}
	}
	return "", "", errors.New("/proc/self/cgroup has no cgroup v2 line (0::)")
}

// makeCgroup makes a cgroup folder and checks that it contains without changing scheduling.
func makeCgroup(mount, rel string) (*Cgroup, error) {
	path := filepath.Join(mount, rel)
	if err := os.Mkdir(path, 0o755); err != nil {
		return nil, fmt.Errorf("cannot make a cgroup (%v): run as root or in a delegated cgroup subtree (a systemd scope with Delegate=yes)", err)
	}
	cg, err := openCgroup(mount, rel, true)
	if err != nil {
		_ = os.Remove(path)
		return nil, err
	}
	return cg, nil
}

// openCgroup opens a cgroup folder for clone3 and refuses one that would change what a spec
// measures: with the cpu controller enabled its processes would be a task group of their own,
// weighed against the kit's as a group, and the autogroup that refmux and others set on Linux
// is ignored for any task outside the root task group (kernel/sched/autogroup.c,
// task_wants_autogroup). With no controller the cgroup only tells who is in it.
func openCgroup(mount, rel string, made bool) (*Cgroup, error) {
	path := filepath.Join(mount, rel)
	ctl, err := os.ReadFile(filepath.Join(path, "cgroup.controllers"))
	if err != nil {
		return nil, fmt.Errorf("cgroup %s: %w", path, err)
	}
	if contains := strings.Fields(string(ctl)); containsWord(contains, "cpu") || containsWord(contains, "cpuset") {
		return nil, fmt.Errorf("cgroup %s has the controllers %q from its parent's cgroup.subtree_control: a cpu controller would change the scheduling a spec measures", path, strings.TrimSpace(string(ctl)))
	}
	if _, err := os.Stat(filepath.Join(path, "cgroup.kill")); err != nil {
		return nil, fmt.Errorf("cgroup %s has no cgroup.kill (Linux 5.14 and later): %w", path, err)
	}
	fd, err := unix.Open(path, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("opening cgroup %s: %w", path, err)
	}
	return &Cgroup{Path: path, rel: rel, fd: fd, made: made}, nil
}

func containsWord(list []string, w string) bool {
	for _, v := range list {
		if v == w {
			return true
		}
	}
	return false
}

// Child makes a cgroup below c (a spec's, a build's, a run's).
func (c *Cgroup) Child(name string) (*Cgroup, error) {
	mount := strings.TrimSuffix(c.Path, c.rel)
	return makeCgroup(mount, filepath.Join(c.rel, name))
}

// Start makes cmd start inside c.
func (c *Cgroup) Start(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, c.fd
}

// Holds says whether pid is in c or below it, as the kernel says (/proc/PID/cgroup).
func (c *Cgroup) Holds(pid int) bool {
	b, err := files.ReadClaim(fmt.Sprintf("/proc/%d/cgroup", pid), 64<<10)
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rel, ok := strings.CutPrefix(line, "0::"); ok {
			return rel == c.rel || strings.HasPrefix(rel, c.rel+"/")
		}
	}
	return false
}

// Members lists every process in c and below it.
func (c *Cgroup) Members() ([]int, error) {
	var pids []int
	err := filepath.WalkDir(c.Path, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil // a child removed while walking
			}
			return err
		}
		if !d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(filepath.Join(p, "cgroup.procs"))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
		return nil
	})
	return pids, err
}
