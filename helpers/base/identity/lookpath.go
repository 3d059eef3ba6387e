package identity

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/classproof/classproof/helpers/base/actas"
	"github.com/classproof/classproof/helpers/base/contract"
)

// LookPath finds a bare command name on the kit's PATH as launcher processes find it: each
// candidate is tried as their user (helpers/base/actas, so the kernel judges every folder on the
// way and the file's mode), and one that user cannot reach or run is passed over. A root kit
// finds a toolchain in root's home (pyenv's shims, cargo) that its launcher, another user,
// cannot start: the error says so before the run, naming the user, each candidate and what stops
// it, and the ways out.
func (id Identity) LookPath(name string) (string, error) {
	if !id.Other() {
		return exec.LookPath(name)
	}
	var passed []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if !filepath.IsAbs(dir) {
			continue // a relative entry means the working folder, which differs per command
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err != nil || fi.IsDir() {
			continue
		}
		err := id.MayRun(p)
		if err == nil {
			return p, nil
		}
		passed = append(passed, fmt.Sprintf("%s (%v)", p, err))
	}
	if len(passed) == 0 {
		return "", fmt.Errorf("%s not found on PATH", name)
	}
	return "", fmt.Errorf("uid %d, which launcher processes run as, cannot run any %s on PATH: %s; install %s where that user can run it, or set %s=0 to run the launcher as root (run.json then says it held root, and gate --require-sandbox blocks the lane)",
		id.Uid, name, strings.Join(passed, "; "), name, contract.LauncherUIDEnv)
}

// MayRun says whether launcher processes may execute the file at path, tried as their user; the
// error names the folder that stops them where the mode bits say which.
func (id Identity) MayRun(path string) error {
	err := actas.Do(id.Uid, id.Gid, func() error {
		fi, err := os.Stat(path)
		if err != nil {
			return err
		}
		if fi.IsDir() {
			return fmt.Errorf("%s is a folder", path)
		}
		return id.mayExec(path, fi)
	})
	if errors.Is(err, os.ErrPermission) {
		if why := id.Reaches(path); why != nil {
			return why
		}
		return fmt.Errorf("uid %d may not execute %s", id.Uid, path)
	}
	return err
}
