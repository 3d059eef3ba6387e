package launcher

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/classproof/classproof/helpers/base/contract"
)

var specPlaceholderRE = regexp.MustCompile(`\{(harness|report|ledger|run|dir|path)\}`)

// RenderSpec fills a spawn spec template (fixtures/specs) for this launcher instance: the
// harness, a fresh report path, the run's ledger and token, the private dir and the kit's PATH, each
// JSON-escaped. It returns the spec and the report path the harness will write.
func (l *Instance) RenderSpec(tmpl []byte) ([]byte, string) {
	report := filepath.Join(l.Dir, fmt.Sprintf("report-spec-%d.json", l.n.Add(1)))
	vals := map[string]string{
		"harness": l.d.Harness, "report": report, "ledger": contract.Current().Ledger, "run": l.set.Token(),
		"dir": l.Dir, "path": os.Getenv("PATH"),
	}
	l.hand(report)
	out := specPlaceholderRE.ReplaceAllFunc(tmpl, func(p []byte) []byte {
		b, _ := json.Marshal(vals[string(p[1:len(p)-1])])
		return b[1 : len(b)-1] // inside the template's own quotes
	})
	return out, report
}

// SendSpec hands the agent host a spec the kit wrote, through the manifest's translator when it
// has one (hostBytes). A refusal comes back as *CommandError with the host's words; a translator
// that fails is an error of another kind, never taken for the host's refusal.
func (l *Instance) SendSpec(spec []byte) (string, error) {
	b, err := l.hostBytes(spec)
	if err != nil {
		return "", err
	}
	return l.SendBytes(b)
}

// SendBytes hands the agent host bytes as they are through the manifest's spawn_spec command.
func (l *Instance) SendBytes(b []byte) (string, error) {
	if len(l.d.Manifest.SpawnSpec) == 0 {
		return "", fmt.Errorf("spawn_spec: %w", ErrNotDeclared)
	}
	path := filepath.Join(l.Dir, fmt.Sprintf("spec-%d.json", l.n.Add(1)))
	if err := l.WriteFile(path, b); err != nil {
		return "", err
	}
	argv, out, err := l.run("spawn_spec", l.d.Manifest.SpawnSpec, map[string]string{"spec": path}, nil)
	if err != nil {
		return out, &CommandError{Field: "spawn_spec", Argv: argv, Output: out, Err: err}
	}
	return out, nil
}

// SpawnFromSpec renders and sends a spec that should start a harness, and waits for its report.
func (l *Instance) SpawnFromSpec(name string, tmpl []byte) (*Session, error) {
	spec, report := l.RenderSpec(tmpl)
	out, err := l.SendSpec(spec)
	if err != nil {
		return nil, err
	}
	s := &Session{Mode: Hosted, Profile: "spec " + name, Output: out, report: report, l: l}
	if err := s.waitReport(func(r Report) bool { return len(r.Tools) > 0 }); err != nil {
		return nil, err
	}
	s.track()
	return s, nil
}

// Pad returns a copy of a spec grown past size bytes with a field nobody reads, for a spec
// that is too large to accept.
func Pad(spec []byte, size int) []byte {
	s := strings.TrimRight(string(spec), "\n")
	s = strings.TrimSuffix(s, "}")
	return []byte(s + `, "padding": "` + strings.Repeat("x", size) + `"}` + "\n")
}
