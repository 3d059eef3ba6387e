package runner

import (
	"os"
	"strings"

	"github.com/classproof/classproof/helpers/binaries"
)

// Reproduce is a command line that runs the kit's command with args (a Table's Args) again, from
// any folder: the archive's own CLI (no Go needed) or go run in the kit's folder kit, every word
// shell-quoted. A receipt's Reproduce line is made here, for every command that writes one.
func Reproduce(kit, command string, args []string) string {
	line := []string{"cd", shellQuote(kit), "&&", "go", "run", "./cmd/classproof", command}
	if binaries.Prebuilt() != "" {
		if exe, err := os.Executable(); err == nil {
			line = []string{shellQuote(exe), command}
		}
	}
	for _, a := range args {
		line = append(line, shellQuote(a))
	}
	return strings.Join(line, " ")
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@,+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}
