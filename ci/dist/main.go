// Command dist is `make dist`: the kit prebuilt for a launcher's CI, so that it needs neither Go
// nor a cold compile on each runner (as critest and the Kubernetes conformance image ship their
// test binaries). For each platform it writes dist/classproof-VERSION-OS-ARCH.tar.gz holding
//
//	VERSION                         the version the binaries carry (binaries.DistVersion)
//	bin/classproof                  the CLI
//	bin/ginkgo                      the ginkgo CLI at the version go.mod pins
//	bin/harness                     the fixture harness every target runs
//	suites/NAME/NAME.test           each suite's compiled test binary
//	launchers/KEY/...               each embedded manifest's launcher (refmux, shmux), built by
//	                                its own build step with its default vars (binaries.LauncherKey)
//	MANIFEST                        the sha256 of the ginkgo CLI, the harness and each suite: a
//	                                run executes only those, and only while they match
//
// and dist/checksums.txt (sha256, as sha256sum prints it). Builds are reproducible: -trimpath,
// Go's content-hashed build id (kept: it is where a Mach-O's LC_UUID comes from), no VCS stamp,
// CGO off, and every archive entry with the commit's time, owner 0 and a fixed mode, in name
// order, gzip with no name or time.
package main

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/classproof/classproof/fixtures/targets"
	"github.com/classproof/classproof/helpers/base/identity"
	"github.com/classproof/classproof/helpers/binaries"
	"github.com/classproof/classproof/helpers/manifest"
)

var platforms = []string{"darwin/arm64", "darwin/amd64", "linux/amd64", "linux/arm64"}

func main() {
	version := flag.String("version", "", "the release's version (default: git describe --tags --always --dirty)")
	out := flag.String("out", "dist", "the folder for the archives and checksums.txt")
	only := flag.String("platforms", strings.Join(platforms, ","), "comma-separated GOOS/GOARCH list")
	flag.Parse()
	if *version == "" {
		*version = git("describe", "--tags", "--always", "--dirty")
	}
	epoch, err := strconv.ParseInt(git("log", "-1", "--format=%ct"), 10, 64)
	if err != nil {
		fail("the commit's time: %v", err)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fail("%v", err)
	}
	var sums []string
	for _, p := range strings.Split(*only, ",") {
		goos, goarch, ok := strings.Cut(p, "/")
		if !ok {
			fail("platform %q: expected GOOS/GOARCH", p)
		}
		name := fmt.Sprintf("classproof-%s-%s-%s.tar.gz", *version, goos, goarch)
		start := time.Now()
		if err := archive(filepath.Join(*out, name), *version, goos, goarch, time.Unix(epoch, 0)); err != nil {
			fail("%s: %v", name, err)
		}
		sum, err := binaries.SumFile(filepath.Join(*out, name))
		if err != nil {
			fail("%v", err)
		}
		sums = append(sums, sum+"  "+name)
		fmt.Printf("dist: %s (%v)\n", filepath.Join(*out, name), time.Since(start).Round(time.Second))
	}
	sort.Strings(sums)
	if err := os.WriteFile(filepath.Join(*out, "checksums.txt"), []byte(strings.Join(sums, "\n")+"\n"), 0o644); err != nil {
		fail("%v", err)
	}
	fmt.Printf("dist: %s\n", filepath.Join(*out, "checksums.txt"))
}

// archive stages one platform's files and writes them as a reproducible tar.gz.
func archive(path, version, goos, goarch string, mtime time.Time) error {
	// The embedded launchers build as the launcher's user (a root kit's is uid 65534), which must
	// pass through to {bin} below the stage: a temp folder of 0711, not MkdirTemp's 0700.
	stage, err := identity.Launcher().TempDir("classproof-dist-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(stage)
	goEnv := map[string]string{"GOOS": goos, "GOARCH": goarch, "CGO_ENABLED": "0", "GOFLAGS": "-trimpath -buildvcs=false", "GOWORK": "off"}
	env := os.Environ()
	for k, v := range goEnv {
		env = append(env, k+"="+v)
	}
	ldflags := distLDFlags(version)
	steps := [][]string{
		{"go", "build", ldflags, "-o", filepath.Join(stage, "bin", "classproof"), "./cmd/classproof"},
		{"go", "build", ldflags, "-o", filepath.Join(stage, "bin", "ginkgo"), "github.com/onsi/ginkgo/v2/ginkgo"},
		{"go", "build", ldflags, "-o", filepath.Join(stage, "bin", "harness"), binaries.HarnessPackage},
	}
	suites, err := filepath.Glob("suites/*/*_suite_test.go")
	if err != nil || len(suites) == 0 {
		return fmt.Errorf("no suites under suites/ (run make dist from the kit's root): %v", err)
	}
	for _, s := range suites {
		n := filepath.Base(filepath.Dir(s))
		steps = append(steps, []string{"go", "test", "-c", ldflags, "-o", filepath.Join(stage, "suites", n, n+".test"), "./suites/" + n})
	}
	for _, s := range steps {
		if err := run(env, s...); err != nil {
			return err
		}
	}
	if err := launchers(stage, goEnv); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(stage, "VERSION"), []byte(version+"\n"), 0o644); err != nil {
		return err
	}
	if err := binaries.WriteArchiveManifest(stage); err != nil {
		return err
	}
	return writeTarGz(path, stage, strings.TrimSuffix(filepath.Base(path), ".tar.gz"), mtime)
}

// distLDFlags are the release builds' linker flags. Go's build id is kept: with an empty one
// (-buildid=) the linker writes no LC_UUID into a Mach-O (cmd/link: the UUID is derived from the
// build id), which dyld policies and macOS's local-network privacy checks rely on. -trimpath
// and the content-hashed build id keep the builds reproducible all the same.
func distLDFlags(version string) string {
	return "-ldflags=-s -w -X " + binaries.Module + "/helpers/binaries.DistVersion=" + version
}

// launchers builds each embedded manifest's launcher with its own build step and default vars,
// for this platform: goEnv joins the step's build.env, so its go build cross-compiles.
func launchers(stage string, goEnv map[string]string) error {
	kit, err := os.Getwd()
	if err != nil {
		return err
	}
	names, err := fs.Glob(targets.FS, "*.yaml")
	if err != nil {
		return err
	}
	for _, n := range names {
		t, err := manifest.Resolve(targets.Catalog(), manifest.EmbeddedPrefix+n, nil, kit, "")
		if err != nil {
			return err
		}
		m := t.Manifest
		if m.Build == nil || (m.Build.Dir != "" && m.Build.Dir != "{kit}") {
			continue
		}
		dir := filepath.Join(stage, "launchers", binaries.LauncherKey(m)) // named before build.env changes
		if _, err := os.Stat(filepath.Join(dir, ".complete")); err == nil {
			continue // another manifest with the same step and vars (refmux and refmux-seed)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		env := map[string]string{}
		for k, v := range m.Build.Env {
			env[k] = v
		}
		for k, v := range goEnv {
			env[k] = v
		}
		m.Build.Env = env
		if _, _, err := binaries.Launcher(context.Background(), t, binaries.Where{Dir: dir}, io.Discard); err != nil {
			return fmt.Errorf("building %s's launcher: %w", n, err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".complete"), nil, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func run(env []string, argv ...string) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v\n%s", strings.Join(argv, " "), err, b)
	}
	return nil
}

// writeTarGz writes every file under stage, under the folder top, in name order, with fixed
// times, owners and modes: the same inputs give the same bytes.
func writeTarGz(path, stage, top string, mtime time.Time) error {
	var files []string
	err := filepath.WalkDir(stage, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		return err
	}
	sort.Strings(files)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, _ := gzip.NewWriterLevel(f, gzip.BestCompression) // no Name, zero ModTime: reproducible
	tw := tar.NewWriter(gz)
	for _, p := range files {
		if err := addFile(tw, stage, top, p, mtime); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := gz.Close(); err != nil {
		return err
	}
	return f.Close()
}

func addFile(tw *tar.Writer, stage, top, p string, mtime time.Time) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	rel, _ := filepath.Rel(stage, p)
	mode := int64(0o644)
	if fi.Mode()&0o111 != 0 {
		mode = 0o755
	}
	hdr := &tar.Header{Name: top + "/" + filepath.ToSlash(rel), Mode: mode, Size: fi.Size(), ModTime: mtime, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	src, err := os.Open(p)
	if err != nil {
		return err
	}
	defer src.Close()
	_, err = io.Copy(tw, src)
	return err
}

func git(args ...string) string {
	b, err := exec.Command("git", args...).Output()
	if err != nil {
		fail("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(b))
}

func fail(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "dist: "+format+"\n", a...)
	os.Exit(1)
}
