package binaries

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/classproof/classproof/helpers/base/identity"
	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/manifest"
)

// Launcher steps, what a LauncherError says failed.
const (
	StepBuild = "build" // the manifest's build step failed
	StepCheck = "check" // built (or handed in), but a command's binary is missing or cannot run
)

// LauncherError is a launcher that cannot be driven at all: reported once, before any suite
// compiles (the CLI exits 2); red/green makes it a side's verdict. Callers tell the steps apart
// with errors.As, never by its text.
type LauncherError struct {
	Target string // the manifest's name
	Step   string // StepBuild or StepCheck
	Err    error
}

func (e *LauncherError) Error() string { return e.Err.Error() }

func (e *LauncherError) Unwrap() error { return e.Err }

// Where says where Launcher finds or puts the launcher's binaries.
type Where struct {
	// Dir is the folder: empty for the kit's cache (an embedded manifest, built once and shared,
	// or a release archive's build) or a temporary folder.
	Dir string
	// Built says Dir holds a build already: it is only checked (red/green built each side first).
	Built bool
	// RunsAs is who the launcher's processes will run as, whom its binaries are checked for: a
	// run's own uid (identity.ForRun); nil for identity.Launcher().
	RunsAs *identity.Identity
}

// Launcher is the one path to a launcher ready to drive: t's build step run where the manifest
// has one (into w.Dir, the cache, or a temporary folder), then every command's binary checked.
// It returns the folder and how to remove it if Launcher made it temporary.
func Launcher(ctx context.Context, t *manifest.Resolved, w Where, log io.Writer) (string, func(), error) {
	m := t.Manifest
	binDir, cleanup := w.Dir, func() {}
	mustBuild := !w.Built && m.Build != nil
	var complete string // the marker of a cached build, written once it succeeded
	embedded := mustBuild && binDir == "" && strings.HasPrefix(m.Source, manifest.EmbeddedPrefix) && (m.Build.Dir == "" || m.Build.Dir == "{kit}")
	archive, made := Prebuilt(), ""
	if embedded && archive != "" { // the archive's build with default vars, else a temporary one
		var err error
		if binDir, err = PrebuiltLauncher(archive, m); err != nil {
			return "", cleanup, &LauncherError{Target: m.Name, Step: StepCheck, Err: err}
		}
		mustBuild, embedded = binDir == "", false
		if binDir != "" {
			made = fmt.Sprintf("the release archive at %s holds it prebuilt: extract the archive again", archive)
		}
	}
	switch {
	case embedded:
		dir, unlock, err := LauncherBin(m, t.Kit)
		if err != nil {
			return "", cleanup, err
		}
		defer unlock()
		var built bool
		if binDir, complete, built, err = cached(t, dir); err != nil {
			return "", cleanup, err
		}
		if built {
			return binDir, cleanup, nil // cached found every binary the manifest names
		}
	case binDir == "":
		dir, err := identity.Launcher().TempDir("classproof-bin")
		if err != nil {
			return "", cleanup, err
		}
		binDir, cleanup = dir, func() { os.RemoveAll(dir) }
	default:
		if err := os.MkdirAll(binDir, 0o755); err != nil {
			return "", cleanup, err
		}
	}
	err := buildAndCheck(ctx, t, binDir, w.RunsAs, mustBuild, embedded, archive, made, log)
	if err != nil {
		if complete != "" {
			os.RemoveAll(binDir)
		}
		return binDir, cleanup, err
	}
	if complete != "" {
		return binDir, cleanup, os.WriteFile(complete, nil, 0o600)
	}
	return binDir, cleanup, nil
}

// cached is an embedded manifest's folder in the kit's cache, kept under the hash of the kit's
// files and the build step and shared (two lanes, the next run): built says it holds a whole
// build already; else it is emptied for one, and complete is the marker to write after.
func cached(t *manifest.Resolved, dir string) (binDir, complete string, built bool, err error) {
	complete = filepath.Join(dir, ".complete")
	if _, err := os.Stat(complete); err == nil && builtWhole(t, dir) {
		now := time.Now()
		_ = os.Chtimes(dir, now, now) // last used, for the sweep
		return dir, complete, true, nil
	}
	// Never built, cut short, or a binary gone since (a cleaner, a disk full): built again, not
	// failed on every run.
	os.RemoveAll(dir)
	return dir, complete, false, os.MkdirAll(dir, identity.Launcher().DirMode())
}

// buildAndCheck runs the build step (when mustBuild) and checks the binaries, each failure a
// LauncherError naming its step; made says where binDir's binaries came from when no build step
// makes them (launcher.Driver.Made).
func buildAndCheck(ctx context.Context, t *manifest.Resolved, binDir string, runsAs *identity.Identity, mustBuild, kitOwn bool, archive, made string, log io.Writer) error {
	m := t.Manifest
	d, err := launcher.New(m, t.Paths(binDir), "")
	if err != nil {
		return &LauncherError{Target: m.Name, Step: StepCheck, Err: err}
	}
	d.Made = made
	if runsAs != nil {
		d.RunsAs = *runsAs
	}
	if mustBuild {
		build := d.Build
		if kitOwn {
			build = d.BuildAsKit // the kit's own launcher, built as its suites are
		}
		if err := build(ctx, log); err != nil {
			step := StepCheck // Build checks the binaries it made
			var be *launcher.BuildError
			if errors.As(err, &be) {
				step = StepBuild
			}
			return &LauncherError{Target: m.Name, Step: step, Err: needsGo(err, m, archive)}
		}
		return nil
	}
	if err := d.CheckBinaries(); err != nil {
		return &LauncherError{Target: m.Name, Step: StepCheck, Err: err}
	}
	return nil
}

// builtWhole says whether a cached launcher build still has every binary the manifest names.
func builtWhole(t *manifest.Resolved, dir string) bool {
	d, err := launcher.New(t.Manifest, t.Paths(dir), "")
	return err == nil && d.CheckBinaries() == nil
}

// needsGo says plainly why an embedded launcher's build failed when it was run from a release
// archive on a machine with no Go.
func needsGo(err error, m *manifest.Manifest, archive string) error {
	if err == nil || archive == "" || m.Build.Run[0] != "go" {
		return err
	}
	if _, goErr := exec.LookPath("go"); goErr == nil {
		return err
	}
	return fmt.Errorf("target %s builds with go, and there is no Go toolchain on PATH: the release archive at %s holds %s built with its default vars only; install Go to build it with other vars (%w)", m.Name, archive, m.Name, err)
}
