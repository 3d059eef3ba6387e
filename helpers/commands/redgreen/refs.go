package redgreen

import (
	"fmt"
	"path/filepath"

	"github.com/classproof/classproof/helpers/base/git"
)

// checkout puts a side's commit in a worktree of its own under work.
func checkout(o Options, s *Side, work string) (string, error) {
	wt := filepath.Join(work, s.Name)
	progress(o, "checking out %s %s (%s)", s.Name, s.Ref, git.Short(s.SHA))
	if _, err := git.Run(o.Repo, "worktree", "add", "--detach", wt, s.SHA); err != nil {
		return "", fmt.Errorf("git worktree for %s: %w", s.Name, err)
	}
	s.launcher = o.Launcher.InRepo(wt)
	return wt, nil
}

// checkRefs resolves both refs: they must be two different commits, and a ref at HEAD while the
// tree has uncommitted changes to tracked files is refused unless AllowDirty (the proof would
// build the commit, not what the user sees), and then noted.
func checkRefs(o Options, p *Proof) error {
	for _, s := range []*Side{p.Red, p.Green} {
		sha, err := git.Resolve(o.Repo, s.Ref)
		if err != nil {
			return fmt.Errorf("%s ref %q in %s: %w", s.Name, s.Ref, o.Repo, err)
		}
		s.SHA = sha
	}
	if p.Red.SHA == p.Green.SHA {
		return fmt.Errorf("--red %s and --green %s are the same commit %s: a proof needs the commit before the fix and the fix", o.Red, o.Green, git.Short(p.Red.SHA))
	}
	head, _ := git.Run(o.Repo, "rev-parse", "HEAD")
	dirty, _ := git.Run(o.Repo, "status", "--porcelain", "--untracked-files=no")
	if dirty == "" || (p.Red.SHA != head && p.Green.SHA != head) {
		return nil
	}
	if !o.AllowDirty {
		return fmt.Errorf("%s has uncommitted changes to tracked files, and a ref is HEAD (%s): the proof would build the commit, not your tree; commit them, or pass --allow-dirty", o.Repo, git.Short(head))
	}
	p.Notes = append(p.Notes, fmt.Sprintf("%s had uncommitted changes to tracked files at HEAD %s; both sides were built from their commits, not from the working tree", o.Repo, git.Short(head)))
	return nil
}

// checkReadsRepo refuses, before anything is built, a manifest whose launcher does not come from
// {repo}: both sides would build and run the same tree, and the receipt would speak of commits
// that were never built.
func checkReadsRepo(o Options) error {
	m := o.Launcher.Manifest
	if ok, why := m.ReadsRepo(); !ok {
		return fmt.Errorf("target manifest %s: %s, so both sides would run the same launcher and the receipt would name commits never built; use {repo} (each side's checkout) in build.dir or build.run, or in daemon.run when there is no build step", m.Source, why)
	}
	return nil
}
