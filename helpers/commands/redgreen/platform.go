package redgreen

import (
	"os/exec"
	"runtime"
	"strings"
)

// Machine is where a proof ran, for the receipt.
type Machine struct {
	OS      string `json:"os"`
	Arch    string `json:"arch"`
	Version string `json:"version"` // kernel release on Linux, product version on macOS
}

func currentMachine() Machine {
	p := Machine{OS: runtime.GOOS, Arch: runtime.GOARCH}
	cmd := exec.Command("uname", "-r")
	if runtime.GOOS == "darwin" {
		cmd = exec.Command("sw_vers", "-productVersion")
	}
	if out, err := cmd.Output(); err == nil {
		p.Version = strings.TrimSpace(string(out))
	}
	return p
}
