package binaries

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

	"github.com/classproof/classproof/helpers/base/files"
	"github.com/classproof/classproof/helpers/manifest"
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
	root, _ := archiveRoot()
	return root
}

// archiveRoot is Prebuilt, with an error for an archive of this binary's version in a folder
// that fails the trust check: the kit refuses it rather than build from source instead.
func archiveRoot() (string, error) {
	if DistVersion == "" {
		return "", nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", nil
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return "", nil
	}
	root := filepath.Dir(filepath.Dir(exe))
	if isPrebuilt(root) != nil {
		return "", nil
	}
	// The rule for the cache: the kit runs the binaries in it, so no one else may change them.
	if err := files.TrustedPath(root); err != nil {
		return "", fmt.Errorf("the release archive at %s: %w; refusing to run its binaries (extract it into a folder of your own)", root, err)
	}
	return root, nil
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

// prebuiltSuites is Suites from an archive: the suites its MANIFEST names (all of them, or the
// ones asked for), each checked against its sum there; anything missing is an error naming it.
func prebuiltSuites(root string, suites []string, harness bool) (Compiled, error) {
	c := Compiled{Ginkgo: filepath.Join(root, "bin", "ginkgo"), prebuilt: true}
	if harness {
		c.Harness = filepath.Join(root, "bin", "harness")
	}
	sums, err := readArchiveManifest(root)
	if err != nil {
		return c, err
	}
	c.Sums = sums
	listed := map[string]bool{}
	var names []string
	for path := range sums {
		if rel, _ := filepath.Rel(root, path); strings.HasPrefix(rel, "suites"+string(filepath.Separator)) {
			n := filepath.Base(filepath.Dir(path))
			listed[n] = true
			names = append(names, n)
		}
	}
	sort.Strings(names)
	if len(suites) > 0 {
		names = names[:0]
		for _, s := range suites {
			names = append(names, filepath.Base(s))
		}
	}
	var missing []string
	for _, n := range names {
		bin := filepath.Join(root, "suites", n, n+".test")
		c.Suites = append(c.Suites, bin)
		if !listed[n] {
			missing = append(missing, bin+" (not in "+ArchiveManifest+")")
		} else {
			missing = appendMissing(missing, bin)
		}
	}
	for _, bin := range []string{c.Ginkgo, c.Harness} {
		if bin != "" {
			missing = appendMissing(missing, bin)
		}
	}
	if len(names) == 0 || len(missing) > 0 {
		return c, fmt.Errorf("the release archive at %s is incomplete (missing: %s; suites listed: %d); extract it again", root, strings.Join(missing, ", "), len(names))
	}
	if c.Harness != "" {
		// Launcher processes run it: where they cannot reach the archive, a copy, checked
		// against the archive's sum as the harness there would be.
		harness, err := forLaunchers(root, filepath.Join("bin", "harness"))
		if err != nil {
			return c, err
		}
		c.Sums[harness], c.Harness = c.Sums[c.Harness], harness
	}
	return c, c.Verify()
}

func appendMissing(missing []string, bin string) []string {
	if fi, err := os.Stat(bin); err != nil || fi.Mode()&0o111 == 0 {
		return append(missing, bin)
	}
	return missing
}

// LauncherKey names an embedded manifest's launcher build by its build step and vars: the same
// name in the archive (make dist builds each one with its default vars) and at run time.
func LauncherKey(m *manifest.Manifest) string {
	sum := sha256.Sum256(launcherStep(m))
	return hex.EncodeToString(sum[:])[:16]
}

// launcherStep is what names a launcher build: the manifest's build step and its vars.
func launcherStep(m *manifest.Manifest) []byte {
	step, _ := json.Marshal([]any{m.Build, m.Vars})
	return step
}

// PrebuiltLauncher is the archive's build of an embedded manifest's launcher with these vars
// (where launcher processes reach it: forLaunchers), or "" when the archive holds none (another
// --var: it must be built, which may need Go).
func PrebuiltLauncher(root string, m *manifest.Manifest) (string, error) {
	rel := filepath.Join("launchers", LauncherKey(m))
	if _, err := os.Stat(filepath.Join(root, rel, ".complete")); err != nil {
		return "", nil
	}
	return forLaunchers(root, rel)
}

// Harness is the fixture harness: the archive's, run from a release archive, else built from
// kitDir into dir.
func Harness(ctx context.Context, kitDir, dir string) (string, error) {
	if root := Prebuilt(); root != "" && root == kitDir {
		bin := filepath.Join(root, "bin", "harness")
		if missing := appendMissing(nil, bin); len(missing) > 0 {
			return "", fmt.Errorf("the release archive at %s is incomplete (missing: %s); extract it again", root, bin)
		}
		return forLaunchers(root, filepath.Join("bin", "harness"))
	}
	bin := filepath.Join(dir, "harness")
	return bin, GoBuild(ctx, kitDir, HarnessPackage, bin)
}

// ArchiveManifest is the release archive's list of the binaries a run executes, one
// "SHA256  PATH" line each (as sha256sum prints it), PATH relative to the archive's root: the
// suites a run finds there are the ones it names, never a glob of the folder, and each is run
// only while it matches its sum.
const ArchiveManifest = "MANIFEST"

// WriteArchiveManifest writes root's ArchiveManifest over its ginkgo CLI, harness and suites
// (make dist, once the archive's files are staged).
func WriteArchiveManifest(root string) error {
	bins, err := filepath.Glob(filepath.Join(root, "suites", "*", "*.test"))
	if err != nil {
		return err
	}
	bins = append(bins, filepath.Join(root, "bin", "ginkgo"), filepath.Join(root, "bin", "harness"))
	var lines []string
	for _, b := range bins {
		sum, err := SumFile(b)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, b)
		lines = append(lines, sum+"  "+filepath.ToSlash(rel))
	}
	sort.Strings(lines)
	return os.WriteFile(filepath.Join(root, ArchiveManifest), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

// readArchiveManifest is root's ArchiveManifest as path -> sum.
func readArchiveManifest(root string) (map[string]string, error) {
	path := filepath.Join(root, ArchiveManifest)
	b, err := files.ReadClaim(path, 1<<20)
	if err != nil {
		return nil, fmt.Errorf("the release archive at %s: %w; extract it again", root, err)
	}
	sums := map[string]string{}
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		sum, rel, ok := strings.Cut(line, "  ")
		if !ok || len(sum) != 64 || rel == "" || strings.Contains(rel, "..") || filepath.IsAbs(rel) {
			return nil, fmt.Errorf("%s line %d: %q is not \"SHA256  PATH\" inside the archive", path, i+1, line)
		}
		sums[filepath.Join(root, filepath.FromSlash(rel))] = sum
	}
	return sums, nil
}
