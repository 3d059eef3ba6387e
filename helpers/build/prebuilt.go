package build

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/classproof/classproof/helpers/target"
)

// DistVersion is the version of the release archive this binary was built for (make dist sets it
// with -X); empty in every other build. The CLI and each suite's test binary in an archive carry
// it, and the archive's VERSION file says the same.
var DistVersion string

// Prebuilt is the root of the release archive this binary runs from, when the archive's VERSION
// is this binary's own DistVersion: its compiled suites, ginkgo CLI, fixture harness and
// reference launchers are then used as they are, with no Go toolchain. "" for any other binary,
// or an archive of another version (the kit then builds from source, as without an archive).
// The archive holds bin/classproof, so the root is two folders up from the executable.
func Prebuilt() string {
	if DistVersion == "" {
		return ""
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return ""
	}
	root := filepath.Dir(filepath.Dir(exe))
	if isPrebuilt(root) != nil {
		return ""
	}
	return root
}

// isPrebuilt checks that dir is an archive of this binary's version.
func isPrebuilt(dir string) error {
	if DistVersion == "" {
		return fmt.Errorf("%s: this binary is no release archive's", dir)
	}
	b, err := os.ReadFile(filepath.Join(dir, "VERSION"))
	if err != nil {
		return err
	}
	if v := strings.TrimSpace(string(b)); v != DistVersion {
		return fmt.Errorf("%s/VERSION is %q; this binary is %q", dir, v, DistVersion)
	}
	return nil
}

// prebuiltSuites is Suites from an archive: every binary is there already, or the archive is
// incomplete, which is an error naming what is missing.
func prebuiltSuites(root string, suites []string, harness bool) (Compiled, error) {
	c := Compiled{Ginkgo: filepath.Join(root, "bin", "ginkgo")}
	if harness {
		c.Harness = filepath.Join(root, "bin", "harness")
	}
	names := make([]string, 0, len(suites))
	for _, s := range suites {
		names = append(names, filepath.Base(s))
	}
	if len(names) == 0 {
		found, err := filepath.Glob(filepath.Join(root, "suites", "*", "*.test"))
		if err != nil {
			return c, err
		}
		for _, f := range found {
			names = append(names, filepath.Base(filepath.Dir(f)))
		}
		sort.Strings(names)
	}
	var missing []string
	for _, n := range names {
		bin := filepath.Join(root, "suites", n, n+".test")
		c.Suites = append(c.Suites, bin)
		missing = appendMissing(missing, bin)
	}
	for _, bin := range []string{c.Ginkgo, c.Harness} {
		if bin != "" {
			missing = appendMissing(missing, bin)
		}
	}
	if len(names) == 0 || len(missing) > 0 {
		return c, fmt.Errorf("the release archive at %s is incomplete (missing: %s; suites found: %d); extract it again", root, strings.Join(missing, ", "), len(names))
	}
	return c, nil
}

func appendMissing(missing []string, bin string) []string {
	if fi, err := os.Stat(bin); err != nil || fi.Mode()&0o111 == 0 {
		return append(missing, bin)
	}
	return missing
}

// LauncherKey names an embedded manifest's launcher build by its build step and vars: the same
// name in the archive (make dist builds each one with its default vars) and at run time.
func LauncherKey(m *target.Manifest) string {
	sum := sha256.Sum256(launcherStep(m))
	return hex.EncodeToString(sum[:])[:16]
}

// launcherStep is what names a launcher build: the manifest's build step and its vars.
func launcherStep(m *target.Manifest) []byte {
	step, _ := json.Marshal([]any{m.Build, m.Vars})
	return step
}

// PrebuiltLauncher is the archive's build of an embedded manifest's launcher with these vars, or
// "" when the archive holds none (another --var: it must be built, which may need Go).
func PrebuiltLauncher(root string, m *target.Manifest) string {
	dir := filepath.Join(root, "launchers", LauncherKey(m))
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err != nil {
		return ""
	}
	return dir
}

// Harness is the fixture harness: the archive's, run from a release archive, else built from
// kitDir into dir.
func Harness(ctx context.Context, kitDir, dir string) (string, error) {
	if root := Prebuilt(); root != "" && root == kitDir {
		bin := filepath.Join(root, "bin", "harness")
		if missing := appendMissing(nil, bin); len(missing) > 0 {
			return "", fmt.Errorf("the release archive at %s is incomplete (missing: %s); extract it again", root, bin)
		}
		return bin, nil
	}
	bin := filepath.Join(dir, "harness")
	return bin, GoBuild(ctx, kitDir, HarnessPackage, bin)
}
