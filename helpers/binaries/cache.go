package binaries

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/classproof/classproof/helpers/base/files"
	"github.com/classproof/classproof/helpers/base/identity"
	"github.com/classproof/classproof/helpers/base/proc"
	"github.com/classproof/classproof/helpers/base/proctable"
	"github.com/classproof/classproof/helpers/manifest"
)

// ginkgoPackage is the ginkgo CLI, built at the version go.mod pins (go run each time would link
// it again).
const ginkgoPackage = "github.com/onsi/ginkgo/v2/ginkgo"

// Compiled is what a run builds once for all its suites.
type Compiled struct {
	Suites  []string // each suite's test binary
	Harness string   // the fixture harness; empty for a dry run
	Ginkgo  string   // the ginkgo CLI at the version go.mod pins
	// Sums are each binary's sha256 as built (sums.go), checked by Verify.
	Sums     map[string]string
	prebuilt bool
}

// Suites builds each suite's test binary (go test -c) and the fixture harness (or, run from a
// release archive, finds them there: Prebuilt), from a
// folder in the user's cache keyed by everything they are built from: the kit's files and the Go
// toolchain's settings. Two lanes, a kill matrix's every variant and the next run share one build
// (the binaries do not depend on the target: the manifest reaches them through the environment).
// Never the kit's own folder, which is read-only in the module cache; never the suites' folders,
// where ginkgo's own compile would put them and two runs at once would delete each other's.
func Suites(ctx context.Context, kitDir string, suites []string, harness bool) (Compiled, error) {
	if root := Prebuilt(); root != "" && root == kitDir {
		return prebuiltSuites(root, suites, harness)
	}
	var c Compiled
	suites, err := suiteList(kitDir, suites)
	if err != nil {
		return c, err
	}
	cache, err := CacheDir()
	if err != nil {
		return c, err
	}
	if err := files.Private(cache, true); err != nil {
		return c, fmt.Errorf("the cache folder %s: %w; refusing to run test binaries from it", cache, err)
	}
	key, err := buildKey(kitDir)
	if err != nil {
		return c, err
	}
	dir := filepath.Join(cache, "suites-"+key)
	// One builder at a time per key: a second run waits for the first's binaries instead of
	// linking the same ones again.
	unlock, err := files.Lock(dir + ".lock")
	if err != nil {
		return c, err
	}
	defer unlock()
	sweepStale(cache, dir)
	if err := os.MkdirAll(dir, identity.Launcher().DirMode()); err != nil {
		return c, err
	}
	now := time.Now()
	_ = os.Chtimes(dir, now, now) // last used, for the sweep
	var missing []string
	c.Ginkgo = filepath.Join(dir, "ginkgo")
	if harness {
		c.Harness = filepath.Join(dir, "harness")
	}
	forgetUnrecorded(c.Ginkgo, c.Harness)
	for _, s := range suites {
		// A folder per suite: ginkgo names each suite's partial reports after its folder.
		bin := filepath.Join(dir, filepath.Base(s), filepath.Base(s)+".test")
		c.Suites = append(c.Suites, bin)
		forgetUnrecorded(bin)
		if _, err := os.Stat(bin); err != nil {
			missing = append(missing, s)
		}
	}
	if err := linkSuites(ctx, kitDir, cache, dir, missing); err != nil {
		return c, err
	}
	if err := buildTools(ctx, kitDir, map[string]string{ginkgoPackage: c.Ginkgo, HarnessPackage: c.Harness}); err != nil {
		return c, err
	}
	c.readSums()
	return c, c.Verify()
}

// suiteList is suites, or every suite of the kit when none is named.
func suiteList(kitDir string, suites []string) ([]string, error) {
	if len(suites) > 0 {
		return suites, nil
	}
	found, err := filepath.Glob(filepath.Join(kitDir, "suites", "*", "*_suite_test.go"))
	if err != nil {
		return nil, err
	}
	for _, f := range found {
		rel, _ := filepath.Rel(kitDir, filepath.Dir(f))
		suites = append(suites, "./"+rel)
	}
	sort.Strings(suites)
	return suites, nil
}

// linkSuites links the missing suites' test binaries with one go command, side by side; each
// lands under a temporary name and is renamed into dir, so a binary there is always whole.
func linkSuites(ctx context.Context, kitDir, cache, dir string, missing []string) error {
	if len(missing) == 0 {
		return nil
	}
	tmp, err := os.MkdirTemp(cache, ".suites-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, "owner"), []byte(proctable.Supervisor()), 0o644); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "go", append([]string{"test", "-c", LinkFlags, "-o", tmp + string(filepath.Separator)}, missing...)...)
	proc.Command(cmd)
	cmd.Dir = kitDir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("compiling suites %s: %v\n%s", strings.Join(missing, " "), err, out)
	}
	for _, s := range missing {
		name := filepath.Base(s)
		if err := os.MkdirAll(filepath.Join(dir, name), identity.Launcher().DirMode()); err != nil {
			return err
		}
		bin := filepath.Join(dir, name, name+".test")
		if err := os.Rename(filepath.Join(tmp, name+".test"), bin); err != nil {
			return fmt.Errorf("compiling suite %s: %w", s, err)
		}
		if err := record(bin); err != nil {
			return err
		}
	}
	return nil
}

// buildTools builds each package into its binary path where it is not there yet ("" skips it),
// under a temporary name first.
func buildTools(ctx context.Context, kitDir string, built map[string]string) error {
	for pkg, bin := range built {
		if bin == "" {
			continue
		}
		if _, err := os.Stat(bin); err == nil {
			continue
		}
		if err := GoBuild(ctx, kitDir, pkg, bin+".tmp"); err != nil {
			return err
		}
		if err := os.Rename(bin+".tmp", bin); err != nil {
			return err
		}
		if err := record(bin); err != nil {
			return err
		}
	}
	return nil
}

// buildKey names a build of the suites: a hash of the Go toolchain's settings and of every file
// of the kit a build could read (its Go files, go.mod and go.sum, and the fixtures it embeds).
// Worked out once per process and kit folder: a run asks for it twice (the launcher's build and
// the suites'), a kill matrix once per cell.
func buildKey(kitDir string) (string, error) {
	keys.Lock()
	defer keys.Unlock()
	if k, ok := keys.m[kitDir]; ok {
		return k, nil
	}
	k, err := hashKit(kitDir)
	if err == nil {
		keys.m[kitDir] = k
	}
	return k, err
}

var keys = struct {
	sync.Mutex
	m map[string]string
}{m: map[string]string{}}

func hashKit(kitDir string) (string, error) {
	h := sha256.New()
	env, err := exec.Command("go", "env", "GOVERSION", "GOOS", "GOARCH", "GOFLAGS", "CGO_ENABLED", "GOEXPERIMENT", "GOAMD64", "GOARM64").Output()
	if err != nil {
		return "", fmt.Errorf("go env: %w%s", err, stderr(err))
	}
	h.Write(env)
	// The folder too: a test binary records its source paths, and a failure's location must name
	// this checkout, not another one with the same files.
	h.Write([]byte(kitDir + "\x00"))
	err = filepath.WalkDir(kitDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(kitDir, path)
		if d.IsDir() {
			switch rel {
			case ".git", "out", "bin", "docs", ".github":
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || strings.HasSuffix(rel, ".md") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %d\n", filepath.ToSlash(rel), len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("hashing the kit's files in %s: %w", kitDir, err)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// LauncherBin is the cache folder of an embedded manifest's launcher build, named by the kit's
// build key and the build step with its vars, locked for the caller.
func LauncherBin(m *manifest.Manifest, kitDir string) (string, func(), error) {
	cache, err := CacheDir()
	if err != nil {
		return "", nil, err
	}
	key, err := buildKey(kitDir)
	if err != nil {
		return "", nil, err
	}
	sum := sha256.Sum256(append([]byte(key), launcherStep(m)...))
	dir := filepath.Join(cache, "bin-"+hex.EncodeToString(sum[:])[:16])
	unlock, err := files.Lock(dir + ".lock")
	if err != nil {
		return "", nil, err
	}
	return dir, unlock, nil
}

// sweepStale removes, in the cache folder, the temporary build folders of runs that are
// gone (their owner, pid and start time, no longer exists; or, with no owner file, over an hour
// old), and keyed builds other than keep unused for a day.
func sweepStale(cache, keep string) {
	dirs, _ := filepath.Glob(filepath.Join(cache, ".suites-*"))
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "owner"))
		if err != nil {
			if fi, serr := os.Stat(d); serr == nil && time.Since(fi.ModTime()) > time.Hour {
				os.RemoveAll(d)
			}
			continue
		}
		if !proctable.Exists(string(b)) {
			os.RemoveAll(d)
		}
	}
	keyed, _ := filepath.Glob(filepath.Join(cache, "suites-*"))
	bins, _ := filepath.Glob(filepath.Join(cache, "bin-*"))
	keyed = append(keyed, bins...)
	for _, d := range keyed {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() && d != keep && time.Since(fi.ModTime()) > 24*time.Hour && !strings.HasSuffix(d, ".lock") {
			// Under its key's lock, and only when no one holds it: a run building or starting
			// from this folder right now keeps it.
			unlock, ok, err := files.TryLock(d + ".lock")
			if err != nil || !ok {
				continue
			}
			if fi, err := os.Stat(d); err == nil && time.Since(fi.ModTime()) > 24*time.Hour {
				os.RemoveAll(d)
			}
			unlock()
		}
	}
}
