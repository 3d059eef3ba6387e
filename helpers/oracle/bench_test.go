package oracle

import (
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/classproof/classproof/helpers/base/proctable"
)

// The oracle's cost: one ps observation (a fork+exec of ps, plus the Linux /proc and ioprio
// reads) against the bare /proc read it complements. Reported in notes, never asserted.
func startSleep(b *testing.B) int {
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd.Process.Pid
}

func BenchmarkObserveOneWithPS(b *testing.B) {
	pid := startSleep(b)
	for i := 0; i < b.N; i++ {
		if _, err := ObserveOne("sleep", pid); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkObserveEightWithOnePS(b *testing.B) {
	var ss []Subject
	for i := 0; i < 8; i++ {
		ss = append(ss, Subject{Role: "sleep", Pid: startSleep(b)})
	}
	for i := 0; i < b.N; i++ {
		if _, err := Observe(ss...); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkProcStatRead(b *testing.B) {
	pid := startSleep(b)
	path := fmt.Sprintf("/proc/%d/stat", pid)
	for i := 0; i < b.N; i++ {
		st, err := os.ReadFile(path)
		if err != nil {
			b.Skip("no /proc here: ", err)
		}
		if _, err := proctable.ParseStat(st); err != nil {
			b.Fatal(err)
		}
	}
}
