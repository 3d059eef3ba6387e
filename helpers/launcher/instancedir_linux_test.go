package launcher

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/classproof/classproof/helpers/base/identity"
)

// swapperEnv makes this test binary a process of the launcher's user that swaps each new
// instance folder in a temp folder, or its run folder, for a symlink the moment it may: another
// spec's process of the run's uid while the kit makes an instance (issue 68). Its value is
// "MODE|BASE|PREFIX|TARGET": MODE top swaps BASE/NAME for a symlink to TARGET; MODE run swaps
// BASE/NAME/run.
const swapperEnv = "CLASSPROOF_TEST_SWAPPER"

func init() {
	v := os.Getenv(swapperEnv)
	if v == "" {
		return
	}
	f := strings.Split(v, "|")
	if len(f) != 4 {
		os.Exit(2)
	}
	os.Exit(swapper(f[0], f[1], f[2], f[3]))
}

// swapper watches base for new names with prefix (inotify) and, for each, retries the rename
// until the kit has handed the folder over (before that the sticky temp folder, or the folder's
// 0700 mode, refuses it), then leaves a symlink to target in the moved folder's place.
func swapper(mode, base, prefix, target string) int {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC)
	if err != nil {
		return 3
	}
	if _, err := unix.InotifyAddWatch(fd, base, unix.IN_CREATE); err != nil {
		return 3
	}
	fmt.Println("watching") // the test waits for this line before the first launch
	buf := make([]byte, 64<<10)
	done := map[string]bool{} // its own symlink is a new name too
	for {
		n, err := unix.Read(fd, buf)
		if err != nil {
			return 4
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := string(bytes.TrimRight(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+int(ev.Len)], "\x00"))
			off += unix.SizeofInotifyEvent + int(ev.Len)
			if !strings.HasPrefix(name, prefix) || strings.Contains(name, ".") || done[name] {
				continue
			}
			done[name] = true
			at := filepath.Join(base, name)
			if mode == "run" {
				at = filepath.Join(at, "run")
			}
			for end := time.Now().Add(5 * time.Second); time.Now().Before(end); {
				if err := unix.Rename(at, at+".moved"); err == nil {
					_ = unix.Symlink(target, at)
					break
				}
			}
		}
	}
}

// A process of the launcher's user swaps the instance folder it was just handed (or its run
// folder) for a symlink to a root-only folder while the kit makes home, run, tmp and run/sites
// in it: the kit must make nothing there, and truncate nothing through it (issue 68: root made
// run and tmp in a root-only folder of the launcher's choosing, 2 of 5 launches). Everything
// below the folder is made through a descriptor of it before it is handed over.
func TestPrivateDirMakesNothingThroughASwappedFolder(t *testing.T) {
	id := identity.Launcher()
	if os.Geteuid() != 0 || !id.Other() {
		t.Skipf("needs a root kit whose launcher is another user; uid %d, launcher %v", os.Geteuid(), id)
	}
	if b, _ := os.ReadFile("/proc/sys/fs/protected_symlinks"); strings.TrimSpace(string(b)) != "0" {
		t.Logf("fs.protected_symlinks is %q: root follows no symlink of another user in a sticky folder, so the top swap cannot show here", strings.TrimSpace(string(b)))
	}
	for _, mode := range []string{"top", "run"} {
		t.Run(mode, func(t *testing.T) { swappedLaunches(t, id, mode, 20) })
	}
}

// swappedLaunches makes n instance folders while a swapper of mode races each, and fails naming
// how many launches root made or truncated something through the swapped name.
func swappedLaunches(t *testing.T, id identity.Identity, mode string, n int) {
	// What the launcher's symlink points at: root's alone, holding a file the kit must not
	// truncate.
	target := t.TempDir()
	precious := filepath.Join(target, "sites")
	// A sticky temp folder open to all, as /tmp is, short enough for instanceBase.
	base, err := os.MkdirTemp("/tmp", "cpt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, os.ModeSticky|0o777); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", base)
	cmd := exec.Command("/proc/self/exe", "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|%s|%s|%s", swapperEnv, mode, base, fmt.Sprintf("cp%d-", os.Getpid()), target))
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: id.Credential()}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if line, err := bufio.NewReader(out).ReadString('\n'); line != "watching\n" {
		t.Fatalf("the swapper (pid %d, uid %d) did not start watching %s: %q, %v", cmd.Process.Pid, id.Uid, base, line, err)
	}
	var followed []string
	seen := map[string]bool{}
	for i := 0; i < n; i++ {
		if err := os.WriteFile(precious, []byte("precious"), 0o600); err != nil {
			t.Fatal(err)
		}
		dir, err := privateDir(id, true)
		if dir == "" {
			t.Fatalf("launch %d: %v", i, err)
		}
		// The control: the swapper did swap this launch's name (after the handover, at the
		// latest), so a launch with nothing followed was raced. The name is the one made: dir
		// is what it resolved to, the target where the swap came first.
		name := newName(t, base, seen)
		swapped := filepath.Join(base, name)
		if mode == "run" {
			swapped = filepath.Join(swapped, "run")
		}
		for end := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			if fi, err := os.Lstat(swapped); err == nil && fi.Mode()&os.ModeSymlink != 0 {
				break
			}
			if time.Now().After(end) {
				t.Fatalf("launch %d: the swapper (pid %d) did not swap %s within 10 s", i, cmd.Process.Pid, swapped)
			}
		}
		ents, _ := os.ReadDir(target)
		b, rerr := os.ReadFile(precious)
		if len(ents) != 1 || rerr != nil || string(b) != "precious" {
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			followed = append(followed, fmt.Sprintf("launch %d (%s, handed out as %s): root-only %s holds %q, its sites file %q (%v)", i, name, dir, target, names, b, rerr))
			for _, e := range ents {
				os.RemoveAll(filepath.Join(target, e.Name()))
			}
		}
		if err != nil && !errors.Is(err, os.ErrExist) {
			t.Logf("launch %d: %v", i, err)
		}
	}
	if len(followed) > 0 {
		t.Errorf("root made or truncated something through the launcher's symlink in %d of %d launches:\n%s", len(followed), n, strings.Join(followed, "\n"))
	}
}

// newName is the one instance folder's name in base not in seen (privateDir's prefix, or the
// swapper's moved copy of it), added to seen.
func newName(t *testing.T, base string, seen map[string]bool) string {
	t.Helper()
	ents, err := os.ReadDir(base)
	if err != nil {
		t.Fatal(err)
	}
	var fresh []string
	for _, e := range ents {
		// Caught mid-swap, it is there only as the one moved.
		if n := strings.TrimSuffix(e.Name(), ".moved"); strings.HasPrefix(n, "cp") && !strings.Contains(n, ".") && !seen[n] {
			fresh = append(fresh, n)
			seen[n] = true
		}
	}
	if len(fresh) != 1 {
		t.Fatalf("%s holds %q new; want the one instance folder just made", base, fresh)
	}
	return fresh[0]
}
