package binaries

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/classproof/classproof/helpers/base/identity"
)

// A root kit's release archive extracted where its launcher's user cannot pass (a mktemp -d,
// /root) runs the harness and its prebuilt launchers from a copy in the kit's cache: the
// archive's bytes, root's, in folders that user passes through and cannot write; a copy whose
// bytes are not the archive's is made again, and an archive that user reaches is used in place
// (issue 67: the reference lane failed its own preflight there).
func TestAnArchiveOutOfTheLaunchersReachRunsFromACopy(t *testing.T) {
	id := identity.Launcher()
	if !id.Other() {
		t.Skip("needs a root kit whose launcher runs as another user (Linux, as root)")
	}
	tmp := t.TempDir()
	for _, p := range []string{filepath.Dir(tmp), tmp} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", "")
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("TMPDIR", tmp) // the cache: tmp/classproof-cache-0
	old := DistVersion
	t.Cleanup(func() { DistVersion = old })
	DistVersion = "v1.2.3"
	private := filepath.Join(tmp, "private")
	root := filepath.Join(private, "classproof-v1.2.3-linux-amd64")
	for rel, body := range map[string]string{"VERSION": "v1.2.3\n", "bin/ginkgo": "#!/bin/sh\n", "bin/harness": "#!/bin/sh\necho harness\n",
		"suites/cpuclass/cpuclass.test": "#!/bin/sh\n", "launchers/k/refmux": "#!/bin/sh\necho refmux\n", "launchers/k/.complete": ""} {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteArchiveManifest(root); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(private, 0o700); err != nil { // root's alone
		t.Fatal(err)
	}
	c, err := prebuiltSuites(root, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	launchers, err := forLaunchers(root, filepath.Join("launchers", "k"))
	if err != nil {
		t.Fatal(err)
	}
	refmux := filepath.Join(launchers, "refmux")
	for bin, want := range map[string]string{c.Harness: "harness", refmux: "refmux"} {
		if strings.HasPrefix(bin, private) {
			t.Fatalf("%s: run from the archive, which uid %d cannot reach", bin, id.Uid)
		}
		if err := id.MayRun(bin); err != nil {
			t.Errorf("the copy %s: %v", bin, err)
		}
		if b, _ := os.ReadFile(bin); !strings.Contains(string(b), "echo "+want) {
			t.Errorf("the copy %s holds %q; want the archive's %s", bin, b, want)
		}
		for _, p := range []string{bin, filepath.Dir(bin)} {
			fi, err := os.Stat(p)
			if err != nil || fi.Sys().(*syscall.Stat_t).Uid != 0 || fi.Mode().Perm()&0o022 != 0 {
				t.Errorf("%s is %v, %v: want root's, writable by root alone", p, fi.Mode(), err)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(launchers, ".complete")); err != nil {
		t.Errorf("the launcher's copy lacks its build's marker: %v", err)
	}
	if err := c.Verify(); err != nil {
		t.Errorf("the harness's copy, checked against the archive's MANIFEST: %v", err)
	}
	if err := os.WriteFile(refmux, []byte("#!/bin/sh\necho changed\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if again, err := forLaunchers(root, filepath.Join("launchers", "k")); err != nil || again != launchers {
		t.Errorf("the copy again: %q, %v; want %s", again, err, launchers)
	} else if b, _ := os.ReadFile(refmux); !strings.Contains(string(b), "echo refmux") {
		t.Errorf("a copy whose bytes changed was used: %q", b)
	}
	if err := os.Chmod(private, 0o755); err != nil {
		t.Fatal(err)
	}
	if in, err := forLaunchers(root, filepath.Join("bin", "harness")); err != nil || in != filepath.Join(root, "bin", "harness") {
		t.Errorf("an archive uid %d reaches: %q, %v; want its own harness", id.Uid, in, err)
	}
}
