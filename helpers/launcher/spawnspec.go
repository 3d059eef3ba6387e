package launcher

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/manifest"
)

var spawnSpecPlaceholderRE = regexp.MustCompile(`\{(harness|report|ledger|run|dir|path)\}`)

// RenderSpawnSpec fills a spawn spec template (fixtures/spawnspecs) for this launcher instance: the
// harness, a fresh report path, the run's ledger and token, the private dir and the kit's PATH, each
// JSON-escaped. It returns the spec and the report path the harness will write.
func (l *Instance) RenderSpawnSpec(tmpl []byte) ([]byte, string) {
	report := filepath.Join(l.Dir, fmt.Sprintf("report-spec-%d.json", l.n.Add(1)))
	l.hand(report)
	return l.renderAt(tmpl, report), report
}

// renderAt fills tmpl with report as its report path.
func (l *Instance) renderAt(tmpl []byte, report string) []byte {
	vals := map[string]string{
		"harness": l.d.Harness, "report": report, "ledger": contract.Current().Ledger, "run": l.set.Token(),
		"dir": l.Dir, "path": os.Getenv("PATH"),
	}
	return spawnSpecPlaceholderRE.ReplaceAllFunc(tmpl, func(p []byte) []byte {
		b, _ := json.Marshal(vals[string(p[1:len(p)-1])])
		return b[1 : len(b)-1] // inside the template's own quotes
	})
}

// SendSpawnSpec hands the agent host a spec the kit wrote, through the manifest's translator when it
// has one (hostBytes). A refusal comes back as *CommandError with the host's words; a translator
// that fails, or changes what the spec means (specChanges), is an error of another kind, never
// taken for the host's refusal.
func (l *Instance) SendSpawnSpec(spec []byte) (string, error) {
	b, err := l.hostBytes(spec)
	if err != nil {
		return "", err
	}
	return l.SendBytes(b)
}

// SendBytes hands the agent host bytes as they are through the manifest's spawn_spec command,
// from a file no launcher process may change (sealedSpec): the bytes the kit checked are the
// bytes handed. spawn_spec is the launcher's transport: the kit trusts it to pass them on as
// they are (docs/manifest.md).
func (l *Instance) SendBytes(b []byte) (string, error) {
	if len(l.d.Manifest.SpawnSpec) == 0 {
		return "", fmt.Errorf("spawn_spec: %w", ErrNotDeclared)
	}
	path, done, err := sealedSpec(b)
	if err != nil {
		return "", err
	}
	defer done()
	argv, out, err := l.run(manifest.At{Run: "spawn_spec"}, manifest.Command{Run: l.d.Manifest.SpawnSpec}, map[string]string{"spec": path})
	if err != nil {
		return out, &CommandError{Field: "spawn_spec", Argv: argv, Output: out, Err: err}
	}
	return out, nil
}

// SpawnFromSpawnSpec renders and sends a spec that should start a harness, and waits for its
// report.
func (l *Instance) SpawnFromSpawnSpec(name string, tmpl []byte) (*Session, error) {
	spec, report := l.RenderSpawnSpec(tmpl)
	out, err := l.SendSpawnSpec(spec)
	if err != nil {
		return nil, err
	}
	s := &Session{Mode: Hosted, Profile: "spec " + name, Output: out, report: report, l: l}
	if err := s.waitReport(func(r contract.HarnessReport) bool { return len(r.Tools) > 0 }); err != nil {
		return nil, err
	}
	if err := s.verify(0); err != nil {
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

// The kinds of bytes an agent host must refuse (the compat suite's needs-raw-spawn-spec specs).
const (
	BadMalformed   = "malformed JSON"
	BadAfterObject = "data after the object"
	BadCutShort    = "a spec cut short (the connection closed halfway)"
	BadOversize    = "a spec over 1 MiB"
)

// maxHostSpec bounds what the kit reads of a translator's output: a good spec, translated.
const maxHostSpec = 1 << 20

// hostBytes is spec as the agent host takes it: the stdout of the manifest's
// spawn_spec_translate, read back from a file of the instance's (the kit's own shell words send
// it there, so what the translator prints on stderr stays out of it), or spec as it is. A
// translation is one JSON object that means what spec means (specmeaning.go), or an error naming
// each field it changed: the bytes checked are the bytes sent.
func (l *Instance) hostBytes(spec []byte) ([]byte, error) {
	t := l.d.Manifest.SpawnSpecTranslate
	if len(t) == 0 {
		return spec, nil
	}
	n := l.n.Add(1)
	in, out := filepath.Join(l.Dir, fmt.Sprintf("kit-spec-%d.json", n)), filepath.Join(l.Dir, fmt.Sprintf("host-spec-%d", n))
	if err := l.WriteFile(in, spec); err != nil {
		return nil, err
	}
	argv, said, err := l.translate(t, in, out)
	if err != nil {
		return nil, fmt.Errorf("target manifest %s: spawn_spec_translate %q failed on a spec the kit wrote (%v); it said:\n%s", l.d.Manifest.Source, strings.Join(argv, " "), err, said)
	}
	b, err := l.d.RunsAs.ReadClaim(out, maxHostSpec)
	if err != nil {
		return nil, fmt.Errorf("target manifest %s: spawn_spec_translate's output: %w", l.d.Manifest.Source, err)
	}
	return b, l.keepsMeaning(spec, b)
}

// translate runs the translator on the spec at in, its stdout to out, and once it has exited
// kills what it left running in its group: nothing it forked may rewrite what is judged and sent.
func (l *Instance) translate(t []string, in, out string) (argv []string, said string, err error) {
	a, err := l.begin(manifest.At{Run: "spawn_spec_translate"}, manifest.Command{Run: t}, map[string]string{"spec": in}, nil, "sh", "-c", `exec "$@" >"$0"`, out)
	if err != nil {
		return a.argv, "", err
	}
	argv, said, err = a.end()
	if kerr := l.set.EndGroup(l.d.Manifest.Name+" spawn_spec_translate (left running)", a.cmd.Process.Pid, l.timeout); kerr != nil {
		return argv, said, errors.Join(err, kerr)
	}
	return argv, said, err
}

// keepsMeaning fails when a translation (host) is not one JSON object the kit can read, or means
// other than the kit's spec: a host is tested on what its bytes say, and a translator that
// changed cpu_class, dropped a newer daemon's fields or added its own would test it on
// something else.
func (l *Instance) keepsMeaning(spec, host []byte) error {
	t := strings.Join(l.d.Manifest.SpawnSpecTranslate, " ")
	changes, err := SpawnSpecChanges(spec, host)
	var unreadable *unreadableError
	switch {
	case errors.As(err, &unreadable):
		return fmt.Errorf("target manifest %s: spawn_spec_translate %q printed what the kit cannot read back as one JSON object (%v): %.200q; the kit judges each translation by reading it back, so a host's format must be a JSON spawn spec (docs/manifest.md)",
			l.d.Manifest.Source, t, unreadable.error, bytes.TrimSpace(host))
	case err != nil:
		return err
	case len(changes) > 0:
		return fmt.Errorf("target manifest %s: spawn_spec_translate %q changed what a spawn spec means, not only its format: %s; a translator may change key order, spacing and env's shape (NAME=VALUE strings or an object), nothing a host reads, or the host is never tested on it. The kit's spec: %.200q; the translation: %.200q",
			l.d.Manifest.Source, t, strings.Join(changes, "; "), bytes.TrimSpace(spec), bytes.TrimSpace(host))
	}
	return nil
}

// BadSpawnSpec is bytes of the given kind (Bad*) for the host to refuse, and the report path the
// harness it must not start would write. With a translator they are built from a good spec
// (good, a template), translated, so that only the defect under test is wrong: a host that reads
// only the first line starts the harness of a translated object followed by data, where the
// kit's own bytes (fixture) would be refused for their format. Without one they are fixture
// rendered (the over-1-MiB kind: good, padded), which spawn_spec adapts as it adapts any spec.
func (l *Instance) BadSpawnSpec(kind string, good, fixture []byte) ([]byte, string, error) {
	if len(l.d.Manifest.SpawnSpecTranslate) == 0 {
		if kind == BadOversize {
			b, report := l.RenderSpawnSpec(good)
			return Pad(b, 1<<20), report, nil
		}
		b, report := l.RenderSpawnSpec(fixture)
		return b, report, nil
	}
	spec, report := l.RenderSpawnSpec(good)
	t, err := l.hostBytes(spec)
	if err != nil {
		return nil, report, err
	}
	t = bytes.TrimRight(t, " \t\r\n") // one JSON object (hostBytes): it ends with its brace
	switch kind {
	case BadMalformed:
		return append(t[:len(t)-1:len(t)-1], ",}\n"...), report, nil // a trailing comma
	case BadAfterObject:
		return []byte(string(t) + "\n" + string(t) + "\n"), report, nil
	case BadCutShort:
		return t[:len(t)/2], report, nil
	case BadOversize:
		return Pad(append(t, '\n'), 1<<20), report, nil
	}
	return nil, report, fmt.Errorf("unknown kind of bad spec %q", kind)
}
