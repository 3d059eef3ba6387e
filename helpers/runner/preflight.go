package runner

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/classproof/classproof/helpers/build"
	"github.com/classproof/classproof/helpers/target"
)

// PreflightError is a target that cannot be driven at all: reported once, before any suite
// compiles (the CLI exits 2).
type PreflightError struct{ Err error }

// Preflight builds the target once, where its manifest has a build step and no bin folder was
// handed in, and checks that every command's binary exists and may be executed. It returns the
// bin folder the suites use and how to remove it if Preflight made it.
func Preflight(ctx context.Context, m *target.Manifest, kitDir, repo, binDir string, log io.Writer) (string, func(), error) {
	cleanup := func() {}
	mustBuild := binDir == "" && m.Build != nil
	var complete string // the marker of a cached build, written once it succeeded
	embedded := mustBuild && strings.HasPrefix(m.Source, target.EmbeddedPrefix) && (m.Build.Dir == "" || m.Build.Dir == "{kit}")
	archive := build.Prebuilt()
	if embedded && archive != "" { // the archive's build with default vars, else a temporary one
		binDir = build.PrebuiltLauncher(archive, m)
		mustBuild, embedded = binDir == "", false
	}
	switch {
	case embedded:
		// A manifest the kit ships builds from the kit's files only: its build is kept in the
		// cache under their hash and the build step, and shared (two lanes, the next run).
		dir, unlock, err := build.LauncherBin(m, kitDir)
		if err != nil {
			return "", cleanup, err
		}
		defer unlock()
		binDir, complete = dir, filepath.Join(dir, ".complete")
		if _, err := os.Stat(complete); err == nil && builtWhole(m, kitDir, repo, dir) {
			mustBuild, complete = false, ""
			now := time.Now()
			_ = os.Chtimes(dir, now, now) // last used, for the sweep
		} else {
			// Never built, cut short, or a binary gone since (a cleaner, a disk full): built
			// again, not failed on every run.
			os.RemoveAll(dir) // a build that did not finish
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return "", cleanup, err
			}
		}
	case binDir == "":
		dir, err := os.MkdirTemp("", "classproof-bin")
		if err != nil {
			return "", cleanup, err
		}
		binDir, cleanup = dir, func() { os.RemoveAll(dir) }
	}
	d, err := target.New(m, target.Paths{Kit: kitDir, Bin: binDir, Repo: repo}, "")
	switch {
	case err != nil:
	case mustBuild:
		fmt.Fprintf(log, "classproof: building target %s: %s\n", m.Name, strings.Join(m.Build.Run, " "))
		err = needsGo(d.Build(ctx, log), m, archive) // Build checks the binaries it made
	default:
		err = d.CheckBinaries()
	}
	if err != nil {
		if complete != "" {
			os.RemoveAll(binDir)
		}
		return binDir, cleanup, &PreflightError{err}
	}
	if complete != "" {
		return binDir, cleanup, os.WriteFile(complete, nil, 0o600)
	}
	return binDir, cleanup, nil
}

// builtWhole says whether a cached launcher build still has every binary the manifest names.
func builtWhole(m *target.Manifest, kitDir, repo, dir string) bool {
	d, err := target.New(m, target.Paths{Kit: kitDir, Bin: dir, Repo: repo}, "")
	return err == nil && d.CheckBinaries() == nil
}

// needsGo says plainly why an embedded launcher's build failed when it was run from a release
// archive on a machine with no Go.
func needsGo(err error, m *target.Manifest, archive string) error {
	if err == nil || archive == "" || m.Build.Run[0] != "go" {
		return err
	}
	if _, goErr := exec.LookPath("go"); goErr == nil {
		return err
	}
	return fmt.Errorf("target %s builds with go, and there is no Go toolchain on PATH: the release archive at %s holds %s built with its default vars only; install Go to build it with other vars (%w)", m.Name, archive, m.Name, err)
}
