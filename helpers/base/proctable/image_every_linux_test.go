package proctable

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A correct launcher runs the machine's own programs (bash, sh, node, python3, tmux, jq, sleep):
// the kit reads each one's image without error, so none is "cannot tell". Every executable
// regular file in the program folders here, and what those commands resolve to, is read; a failure lists each one and why.
func TestEveryInstalledProgramIsRead(t *testing.T) {
	var paths []string
	for _, dir := range []string{"/usr/bin", "/usr/sbin", "/usr/local/bin"} {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			paths = append(paths, filepath.Join(dir, e.Name()))
		}
	}
	// What a launcher's commands resolve to where they live elsewhere (a version manager's
	// python3 behind a shim script), and the kit's own test binary.
	for _, name := range []string{"bash", "sh", "node", "python3", "tmux", "jq", "sleep"} {
		if p, err := exec.LookPath(name); err == nil {
			paths = append(paths, p)
		}
	}
	if out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output(); err == nil {
		paths = append(paths, strings.TrimSpace(string(out)))
	}
	if self, err := os.Executable(); err == nil {
		paths = append(paths, self)
	}
	var read int
	var failed []string
	for _, path := range paths {
		st, err := os.Stat(path)
		if err != nil || !st.Mode().IsRegular() || st.Mode()&0o111 == 0 {
			continue
		}
		f, err := os.Open(path)
		if err != nil {
			continue // not readable by the kit's user: a test of nothing here
		}
		_, err = imagesOfFile(f, func(size int64) bool { return size < 1<<20 })
		f.Close()
		read++
		if err != nil {
			failed = append(failed, err.Error())
		}
	}
	if read == 0 {
		t.Skip("no programs found in /usr/bin, /usr/sbin, /usr/local/bin")
	}
	if len(failed) > 0 {
		t.Errorf("of %d installed programs, the kit cannot read %d:\n  %s", read, len(failed), strings.Join(failed, "\n  "))
	}
	t.Logf("%d installed programs read", read)
}
