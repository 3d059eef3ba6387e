// Package binaries gives the kit's own source and builds: where the kit is (a checkout or the module
// cache), its version, the user's cache folder, and the binaries built there once and shared under
// a hash of what they are built from: the suites' test binaries, the fixture harness, the ginkgo
// CLI, and an embedded manifest's launcher. It is about the kit, not a target or a run.
//
// It must not import the Ginkgo DSL, Gomega, helpers/suite or fixtures/ (ci/layers.rules).
package binaries

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/files"
	"github.com/classproof/classproof/helpers/base/identity"
	"github.com/classproof/classproof/helpers/base/proc"
)

// HarnessPackage is the fixture harness every target runs as its agent harness.
const HarnessPackage = Module + "/fixtures/harness"

// Module is the kit's module path.
const Module = "github.com/classproof/classproof"

// KitDir is the classproof module's root, where the suites live and the embedded manifests'
// build steps run: a checkout, the read-only module cache when the CLI was started with
// `go run github.com/classproof/classproof/cmd/classproof@VERSION`, or a release archive's root.
// Found, in order: from $CLASSPROOF_KIT (set by the CLI for its suites); from the release archive
// this binary came in (Prebuilt); from the source this binary was Compiled from
// (its path is recorded in the binary unless it was built with -trimpath); from the module
// version this binary is (go mod download prints where the module cache holds it); from the
// module of the current folder (a checkout, with go list).
func KitDir() (string, error) {
	if d := contract.Current().Kit; d != "" {
		if err := isKit(d); err != nil && isPrebuilt(d) != nil {
			return "", fmt.Errorf("$%s=%s: %w", contract.KitEnv, d, err)
		}
		// The kit builds and runs from it: a folder someone else could change is refused, as
		// the cache is.
		if err := files.TrustedPath(d); err != nil {
			return "", fmt.Errorf("$%s=%s: %w; refusing to build or run the kit from it", contract.KitEnv, d, err)
		}
		return d, nil
	}
	if root, err := archiveRoot(); err != nil {
		return "", err
	} else if root != "" {
		return root, nil
	}
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		// this file is helpers/binaries/source.go
		if d := filepath.Dir(filepath.Dir(filepath.Dir(file))); isKit(d) == nil {
			// The path this binary was built from, found again: it must still be a folder no
			// one else could have made or changed since, for the kit builds and runs from it.
			if err := files.TrustedPath(d); err != nil {
				return "", fmt.Errorf("the kit's source %s (where this binary was built): %w; refusing to build from it", d, err)
			}
			return d, nil
		}
	}
	if v := Version(); v != "" {
		cmd := exec.Command("go", "mod", "download", "-json", Module+"@"+v)
		cmd.Dir = os.TempDir() // not inside the caller's module, whose go.mod may not mention us
		cmd.Env = append(os.Environ(), "GOWORK=off")
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("finding classproof %s's source with go mod download: %w%s", v, err, stderr(err))
		}
		var dl struct{ Dir string }
		if err := json.Unmarshal(out, &dl); err != nil || dl.Dir == "" {
			return "", fmt.Errorf("finding classproof %s's source: go mod download said %q", v, head(string(out)))
		}
		return dl.Dir, isKit(dl.Dir)
	}
	// Never the current folder's module (go list): a launcher's repository, where the CLI
	// typically starts, could name a kit of its own in a go.work or a replace.
	return "", fmt.Errorf("finding the classproof kit: this binary records neither a source folder (built with -trimpath?) nor a version; set $%s to a classproof checkout of your own, or run the CLI from a release archive or with go run %s/cmd/classproof@VERSION", contract.KitEnv, Module)
}

// isKit checks that dir holds the kit's go.mod.
func isKit(dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return err
	}
	if modfile.ModulePath(b) != Module {
		return fmt.Errorf("%s/go.mod is not module %s", dir, Module)
	}
	return nil
}

// head is at most the first 5 lines of a command's output, for an error message.
func head(s string) string {
	lines := strings.SplitN(strings.TrimSpace(s), "\n", 6)
	if len(lines) > 5 {
		lines[5] = "…"
	}
	return strings.Join(lines, "\n")
}

func stderr(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) && len(ee.Stderr) > 0 {
		return ": " + head(string(ee.Stderr))
	}
	return ""
}

// Version is the kit's module version when this binary was built from a module version (go run
// or go install of classproof@VERSION); empty for a checkout, which Go may stamp with a
// pseudo-version from git (-buildvcs) that no module proxy knows.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Path != Module || bi.Main.Version == "" || bi.Main.Version == "(devel)" {
		return ""
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs" {
			return ""
		}
	}
	return bi.Main.Version
}

// CacheDir is where the kit writes what it builds (Compiled suites, the harness): the user's
// cache folder, keyed by the kit's version so that two versions never share it ("devel" for a
// checkout, whose builds inside it are keyed by a hash of its files). Never the kit's own
// folder, which is read-only in the module cache.
func CacheDir() (string, error) {
	id := identity.Launcher()
	base := id.CacheBase()
	v := Version()
	if v == "" {
		v = "devel"
	}
	dir := filepath.Join(base, "classproof", v)
	// Checked before and after it is made: the kit runs binaries from here, and a folder on the
	// way that another user made or can write (the /tmp fallback has a name anyone can guess) is
	// one where they put the binaries.
	if err := files.TrustedPath(dir); err != nil {
		return "", fmt.Errorf("the cache folder %s: %w; refusing to build or run anything from it", dir, err)
	}
	if err := os.MkdirAll(dir, id.DirMode()); err != nil {
		return "", err
	}
	// Launcher processes run the harness and the launcher's binaries from below it: when they run
	// as another user, every folder of the kit's on the way lets them pass (CacheBase).
	for p := dir; id.Other() && p != filepath.Dir(base); p = filepath.Dir(p) {
		if err := os.Chmod(p, id.DirMode()); err != nil {
			return "", err
		}
	}
	if err := files.TrustedPath(dir); err != nil {
		return "", fmt.Errorf("the cache folder %s: %w; refusing to build or run anything from it", dir, err)
	}
	return dir, nil
}

// LinkFlags are how the kit links its own binaries: without the symbol table and DWARF (Go's
// stack traces come from its own tables, not these), which a cold run's links would otherwise
// spend seconds writing for nobody; the release archive's are linked so too (ci/dist).
const LinkFlags = "-ldflags=-s -w"

// GoBuild builds a package of the kit into out. It runs in the kit's folder, which holds the
// go.mod that pins its dependencies; the caller's folder may be any repository.
func GoBuild(ctx context.Context, kitDir, pkg, out string) error {
	cmd := exec.CommandContext(ctx, "go", "build", LinkFlags, "-o", out, pkg)
	cmd.Dir = kitDir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	proc.Command(cmd)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building %s: %v\n%s", pkg, err, b)
	}
	return nil
}
