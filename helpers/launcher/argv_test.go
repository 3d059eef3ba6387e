package launcher

import (
	"bufio"
	"os/exec"
	"strings"
	"testing"

	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/proctable"
)

// What a shell does to a joined argv, each caught at its first argument and said as a receipt.
func TestArgvDiffNamesTheFirstArgumentAShellChanged(t *testing.T) {
	handed := []string{"--report", "/r.json", "--", "two words", "", "$HOME"}
	for _, c := range []struct {
		name string
		got  []string
		want string
	}{
		{"whole", handed, ""},
		{"split at the space", []string{"--report", "/r.json", "--", "two", "words", "/root"}, `argument 4 is "two" where "two words" was handed`},
		{"an empty one dropped, the last", []string{"--report", "/r.json", "--", "two words", ""}, `argument 6, "$HOME", is missing`},
		{"one more", append(append([]string{}, handed...), "x"), `argument 7, "x", was never handed`},
	} {
		if got := argvDiff(c.got, handed); (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: argvDiff = %q, want %q", c.name, got, c.want)
		}
	}
}

// The check reads what the kernel holds for a real process, empty arguments and a newline
// included, and tells it from a command handed otherwise.
func TestArgvAsHandedReadsTheKernelsArgv(t *testing.T) {
	// A shell that waits on its stdin, holding the odd arguments as its own ($0 on): no child
	// of its own to leak, and it ends when the pipe closes.
	// It says ready once it runs: read before, its arguments may still be in the middle of exec
	// (a loaded host saw "no arguments").
	cmd := exec.Command("/bin/sh", "-c", "echo ready; read x", "sh", "", "a\nb", "", `it's "x" $HOME *`)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); _ = cmd.Wait() }()
	if line, err := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
		t.Fatalf("the shell, pid %d, did not start: %q %v", cmd.Process.Pid, line, err)
	}
	row, lerr := proctable.Lookup(cmd.Process.Pid)
	if lerr != nil {
		t.Fatal("the child is not in the process table")
	}
	l := &Instance{}
	l.hand("/r-1.json", cmd.Args...)
	l.hand("/r-2.json", "/bin/sh", "-c", "echo ready; read x", "sh", "a\nb", "", `it's "x" $HOME *`)
	s := &Session{Mode: Direct, Profile: "p", Report: contract.HarnessReport{HarnessPid: cmd.Process.Pid, HarnessStart: row.Start}, report: "/r-1.json", l: l}
	if err := s.ArgvAsHanded(); err != nil {
		t.Errorf("the arguments it was started with: %v", err)
	}
	s.report = "/r-2.json"
	if err := s.ArgvAsHanded(); err == nil || !strings.Contains(err.Error(), `argument 4 is "" where "a\nb" was handed`) {
		t.Errorf("a command handed otherwise: %v", err)
	}
}
