// Package docs holds the test that every example a user copies from README.md and docs/ works:
// a command names a make target, CLI command and flags that exist; a manifest loads; a workflow
// step passes only inputs the action or workflow has; an adapter, run for real against a stub of
// the launcher it adapts to, hands on what the kit gave it. A copyable block (sh, yaml, json) that
// no rule here claims fails the test: an example nobody checks is an example that rots.
package docs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/limits"
	"github.com/classproof/classproof/helpers/lane"
	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/manifest"
)

// block is one fenced code block and the example marker (<!-- example: NAME -->) right above it.
type block struct {
	file, lang, marker, text string
	line                     int
}

func (b block) String() string { return fmt.Sprintf("%s:%d (%s)", b.file, b.line, b.lang) }

var markerRE = regexp.MustCompile(`^<!-- example: ([a-z-]+) -->$`)

// blocks reads every fenced block of README.md, CONTRIBUTING.md and docs/*.md.
func blocks(t *testing.T, root string) []block {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append([]string{filepath.Join(root, "README.md"), filepath.Join(root, "CONTRIBUTING.md")}, files...)
	var out []block
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		lines := strings.Split(string(b), "\n")
		for i := 0; i < len(lines); i++ {
			// A fence may be indented (a block inside a list item): its lines are, by as much.
			fence := strings.TrimLeft(lines[i], " ")
			if !strings.HasPrefix(fence, "```") {
				continue
			}
			indent := lines[i][:len(lines[i])-len(fence)]
			bl := block{file: rel, lang: strings.TrimPrefix(fence, "```"), line: i + 1}
			if i > 1 {
				if m := markerRE.FindStringSubmatch(strings.TrimLeft(lines[i-1], " ")); m != nil {
					bl.marker = m[1]
				}
			}
			var body []string
			for i++; i < len(lines) && !strings.HasPrefix(strings.TrimLeft(lines[i], " "), "```"); i++ {
				body = append(body, strings.TrimPrefix(lines[i], indent))
			}
			bl.text = strings.Join(body, "\n") + "\n"
			out = append(out, bl)
		}
	}
	return out
}

func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestEveryCopyableExampleWorks(t *testing.T) {
	dir := root(t)
	cli := buildCLI(t, dir)
	claimed := map[string]bool{}
	for _, b := range blocks(t, dir) {
		if b.lang == "" {
			continue // a sample of output, a layout, a receipt: read, not copied
		}
		t.Run(fmt.Sprintf("%s:%d", b.file, b.line), func(t *testing.T) {
			switch {
			case b.marker != "":
				runMarked(t, dir, b)
			case b.lang == "sh":
				checkCommands(t, dir, cli, b)
			case b.lang == "yaml":
				checkYAML(t, dir, b)
			case b.lang == "json":
				if !json.Valid([]byte(b.text)) {
					t.Errorf("%s is not JSON:\n%s", b, b.text)
				}
			default:
				t.Errorf("%s: a %q block that no rule checks; add one to ci/docs", b, b.lang)
			}
		})
		if b.marker != "" {
			claimed[b.marker] = true
		}
	}
	for _, m := range []string{"session-adapter", "spawn-spec-adapter", "spawn-spec-adapter-manifest", "spawn-spec-translator-manifest", "uid-release", "uid-release-unconfined"} {
		if !claimed[m] {
			t.Errorf("no block is marked <!-- example: %s -->: the adapter this test runs is gone from the docs", m)
		}
	}
}

func buildCLI(t *testing.T, dir string) string {
	t.Helper()
	cli := filepath.Join(t.TempDir(), "classproof")
	cmd := exec.Command("go", "build", "-o", cli, "./cmd/classproof")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the CLI: %v\n%s", err, out)
	}
	return cli
}

// commandLines joins continued lines and drops comments and blank lines.
func commandLines(text string) []string {
	var out []string
	cur := ""
	for _, l := range strings.Split(text, "\n") {
		if i := strings.Index(l, " #"); i >= 0 {
			l = l[:i]
		}
		if strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		l = strings.TrimSpace(l)
		if strings.HasSuffix(l, "\\") || strings.HasSuffix(l, "|") {
			cur += strings.TrimSuffix(l, "\\") + " "
			continue
		}
		cur += l
		if strings.TrimSpace(cur) != "" {
			out = append(out, strings.TrimSpace(cur))
		}
		cur = ""
	}
	return out
}

var (
	cliRE    = regexp.MustCompile(`^(?:go run \./cmd/classproof|go run github\.com/classproof/classproof/cmd/classproof@\S+|classproof|(?:\S+/)?bin/classproof) (\S+)(.*)$`)
	flagRE   = regexp.MustCompile(`(?:^|[\s\[])--([a-z][a-z-]*)`)
	curlRE   = regexp.MustCompile(`^curl -fsSL https://raw\.githubusercontent\.com/classproof/classproof/VERSION/(\S+)$`)
	targetRE = regexp.MustCompile(`(?m)^([A-Za-z0-9_./-]+):`)
)

// checkCommands checks each command of a sh block against what the repository has.
func checkCommands(t *testing.T, dir, cli string, b block) {
	makefile, err := os.ReadFile(filepath.Join(dir, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	var targets []string
	for _, m := range targetRE.FindAllStringSubmatch(string(makefile), -1) {
		targets = append(targets, m[1])
	}
	for _, line := range commandLines(b.text) {
		for _, cmd := range pipeline(line) {
			cmd = strings.TrimSpace(cmd)
			f := strings.Fields(cmd)
			// ci/delegate runs the command after it, which is checked as any other.
			for len(f) > 1 && f[0] == "ci/delegate" {
				f = f[1:]
				cmd = strings.Join(f, " ")
			}
			if len(f) == 0 {
				t.Errorf("%s: an empty command in %q", b, line)
				continue
			}
			switch m := cliRE.FindStringSubmatch(cmd); {
			case m != nil:
				checkCLI(t, cli, b, m[1], m[2])
			case f[0] == "make":
				for _, a := range f[1:] {
					if !strings.Contains(a, "=") && !slices.Contains(targets, a) {
						t.Errorf("%s: make %s: the Makefile has no target %q", b, a, a)
					}
				}
			case f[0] == "go" && len(f) == 3 && f[1] == "install":
				if !strings.HasPrefix(f[2], "github.com/classproof/classproof/cmd/classproof@") {
					t.Errorf("%s: go install %s: not the kit's CLI", b, f[2])
				}
			case f[0] == "go" && len(f) >= 3 && f[1] == "test":
				if _, err := os.Stat(filepath.Join(dir, f[2])); err != nil {
					t.Errorf("%s: go test %s: %v", b, f[2], err)
				}
			case f[0] == "ci/lane":
				if len(f) < 2 || !slices.Contains(lane.Names(), f[1]) {
					t.Errorf("%s: %q: ci/lane takes one of %v", b, cmd, lane.Names())
				}
			case curlRE.MatchString(cmd):
				// The script itself is run against a loopback server by ci/dist's fetch test.
				if _, err := os.Stat(filepath.Join(dir, curlRE.FindStringSubmatch(cmd)[1])); err != nil {
					t.Errorf("%s: %q fetches a file the repository does not have: %v", b, cmd, err)
				}
			case f[0] == "sh" && len(f) == 4 && f[1] == "-s":
				// the other end of the curl pipe: ci/fetch-release VERSION DIR
			default:
				t.Errorf("%s: %q: no rule checks this command; add one to ci/docs", b, cmd)
			}
		}
	}
}

// pipeline splits a command line at the pipes outside quotes.
func pipeline(line string) []string {
	var out []string
	var quote rune
	start := 0
	for i, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote == 0 && (r == '\'' || r == '"'):
			quote = r
		case quote == 0 && r == '|' && !strings.HasPrefix(line[i:], "||"):
			out = append(out, line[start:i])
			start = i + 1
		}
	}
	return append(out, line[start:])
}

// checkCLI checks a classproof command and each --flag it shows against the CLI's own help.
func checkCLI(t *testing.T, cli string, b block, sub, rest string) {
	out, err := exec.Command(cli, sub, "-h").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "usage: classproof "+sub) {
		t.Errorf("%s: classproof %s: not a command (%v):\n%s", b, sub, err, out)
		return
	}
	for _, m := range flagRE.FindAllStringSubmatch(rest, -1) {
		if !regexp.MustCompile(`(?m)^  -` + regexp.QuoteMeta(m[1]) + `\b`).Match(out) {
			t.Errorf("%s: classproof %s has no flag --%s", b, sub, m[1])
		}
	}
}

// checkYAML checks a manifest, a step that uses the action, or a job that calls the workflow.
func checkYAML(t *testing.T, dir string, b block) {
	var doc any
	if err := yaml.Unmarshal([]byte(b.text), &doc); err != nil {
		t.Fatalf("%s is not YAML: %v", b, err)
	}
	switch {
	case strings.Contains(b.text, "class_env:"):
		if _, err := manifest.Parse(b.String(), []byte(b.text)); err != nil {
			t.Errorf("%s: the manifest does not load: %v", b, err)
		}
	case strings.Contains(b.text, "uses: classproof/classproof/.github/workflows/lanes.yml@"):
		withKeys(t, b, doc, inputs(t, filepath.Join(dir, ".github", "workflows", "lanes.yml"), "on", "workflow_call", "inputs"))
	case strings.Contains(b.text, "uses: classproof/classproof@"):
		withKeys(t, b, doc, inputs(t, filepath.Join(dir, "action.yml"), "inputs"))
	default:
		t.Errorf("%s: a YAML block that no rule checks; add one to ci/docs", b)
	}
}

// inputs reads the input names at path's keys in a YAML file.
func inputs(t *testing.T, file string, path ...string) []string {
	t.Helper()
	var doc map[string]any
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var cur any = doc
	for _, k := range path {
		m, _ := cur.(map[string]any)
		cur = m[k]
	}
	var names []string
	for k := range cur.(map[string]any) {
		names = append(names, k)
	}
	return names
}

// withKeys checks every `with:` key in the example is an input the action or workflow declares.
func withKeys(t *testing.T, b block, doc any, known []string) {
	found := 0
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, w := range x {
				if k == "with" {
					for in := range w.(map[string]any) {
						found++
						if !slices.Contains(known, in) {
							t.Errorf("%s: with: %s is not an input; the inputs: %v", b, in, known)
						}
					}
				}
				walk(w)
			}
		case []any:
			for _, w := range x {
				walk(w)
			}
		}
	}
	walk(doc)
	if found == 0 {
		t.Errorf("%s: no with: keys found; the example passes nothing", b)
	}
}

// runMarked runs an adapter example for real, against a stub of the launcher it adapts to: the
// stub (a shell script named myl on PATH) records what it was handed.
func runMarked(t *testing.T, dir string, b block) {
	switch b.marker {
	case "session-adapter":
		sessionAdapter(t, b)
	case "spawn-spec-adapter":
		spawnSpecAdapter(t, dir, b)
	case "spawn-spec-translator-manifest":
		spawnSpecTranslator(t, dir, b)
	case "spec-skeleton":
		specSkeleton(t, dir, b)
	case "uid-release":
		uidRelease(t, b, false)
	case "uid-release-unconfined":
		uidRelease(t, b, true)
	case "spawn-spec-adapter-manifest":
		base := "name: myl\nclass_env: MYL_CLASS\nbackground: {darwin: darwinbg, linux: idle}\n" +
			"daemon: {run: [\"{bin}/myl\", daemon]}\nsession: {direct: [\"{bin}/myl\", session, \"{profile}\"]}\n" +
			"host: {run: [\"{bin}/myl\", host]}\n"
		if _, err := manifest.Parse(b.String(), []byte(base+b.text)); err != nil {
			t.Errorf("%s: the spawn_spec line does not load in a manifest: %v", b, err)
		}
	default:
		t.Errorf("%s: unknown example marker %q", b, b.marker)
	}
}

// stub writes a myl that records its arguments (one a line) and its standard input.
func stub(t *testing.T) (bin, args, stdin string) {
	t.Helper()
	d := t.TempDir()
	args, stdin = filepath.Join(d, "args"), filepath.Join(d, "stdin")
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done >" + args + "\ncat >" + stdin + "\n"
	bin = filepath.Join(d, "bin")
	os.Mkdir(bin, 0o755)
	if err := os.WriteFile(filepath.Join(bin, "myl"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, args, stdin
}

func sessionAdapter(t *testing.T, b block) {
	bin, args, _ := stub(t)
	d := t.TempDir()
	adapter := filepath.Join(d, "classproof-adapter.sh")
	os.WriteFile(adapter, []byte(b.text), 0o755)
	// The kit's own profile, with words a careless adapter would split or expand.
	p := launcher.Profile{Name: "classproof-1", Env: map[string]string{"MYL_SESSION_CPU_CLASS": "normal", "X": "a b $(c)"},
		Command: []string{"/opt/h arness", "--report", "it's a report.json", "--run", "$HOME"}, Cwd: d}
	pb, _ := json.Marshal(p)
	profile := filepath.Join(d, "profile.json")
	os.WriteFile(profile, pb, 0o600)
	for _, mode := range []string{"direct", "hosted"} {
		cmd := exec.Command("sh", adapter, mode, "/run/myl.sock", profile)
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: the adapter (%s) failed: %v\n%s", b, mode, err, out)
		}
		got, _ := os.ReadFile(args)
		want := []string{"session", "--socket", "/run/myl.sock"}
		if mode == "hosted" {
			want = append(want, "--via-host")
		}
		env, _ := json.Marshal(p.Env)
		want = append(append(want, "--env-json", string(env), "--"), p.Command...)
		if strings.Join(want, "\n")+"\n" != string(got) {
			t.Errorf("%s, %s: the launcher got\n%s\nwant\n%s", b, mode, got, strings.Join(want, "\n"))
		}
	}
}

func spawnSpecAdapter(t *testing.T, dir string, b block) {
	bin, _, stdin := stub(t)
	d := t.TempDir()
	adapter := filepath.Join(d, "send-spec-adapter.sh")
	os.WriteFile(adapter, []byte(b.text), 0o755)
	spec := func(name string) []byte {
		bs, err := os.ReadFile(filepath.Join(dir, "fixtures", "spawnspecs", name))
		if err != nil {
			t.Fatal(err)
		}
		return bs
	}
	big := append(bytes.TrimSpace(spec("daemon-cpu-class-background.json")), bytes.Repeat([]byte(" "), 1<<20)...)
	for _, c := range []struct {
		name string
		in   []byte
		want string // "" means: handed on byte for byte
	}{
		{"env strings become an object, a value's own = kept", []byte(`{"argv":["h"],"env":["PATH=/usr/bin","X=a=b"],"cpu_class":"background"}`),
			`{"argv":["h"],"env":{"PATH":"/usr/bin","X":"a=b"},"cpu_class":"background"}`},
		{"no env", []byte(`{"argv":["h"]}`), `{"argv":["h"],"env":{}}`},
		{"malformed JSON", spec("bad-malformed-json.json"), ""},
		{"data after the object", spec("bad-data-after-object.json"), ""},
		{"cut short", spec("bad-closed-halfway.json"), ""},
		{"over 1 MiB", big, ""},
	} {
		f := filepath.Join(d, "spec.json")
		os.WriteFile(f, c.in, 0o600)
		cmd := exec.Command("sh", adapter, filepath.Join(bin, "myl"), f, "/run/h.sock")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s, %s: the adapter failed: %v\n%s", b, c.name, err, out)
			continue
		}
		got, _ := os.ReadFile(stdin)
		switch {
		case c.want == "" && !bytes.Equal(got, c.in):
			t.Errorf("%s, %s: the host must get the bytes as they are; it got %d bytes: %.200q", b, c.name, len(got), got)
		case c.want != "" && strings.TrimSpace(string(got)) != c.want:
			t.Errorf("%s, %s: the host got %s, want %s", b, c.name, got, c.want)
		}
	}
}

// spawnSpecTranslator loads the translator's manifest lines and runs the translator, as the kit
// would, on specs the kit writes: env strings become an object, a value's own = kept, and the
// kit, reading each translation back, finds it means what it was given.
func spawnSpecTranslator(t *testing.T, dir string, b block) {
	base := "name: myl\nclass_env: MYL_CLASS\nbackground: {darwin: darwinbg, linux: idle}\n" +
		"daemon: {run: [\"{bin}/myl\", daemon]}\nsession: {direct: [\"{bin}/myl\", session, \"{profile}\"]}\n" +
		"host: {run: [\"{bin}/myl\", host]}\n"
	m, err := manifest.Parse(b.String(), []byte(base+b.text))
	if err != nil || len(m.SpawnSpecTranslate) == 0 {
		t.Fatalf("%s: the translator's lines do not load in a manifest: %v", b, err)
	}
	for in, want := range map[string]string{
		`{"argv":["h"],"env":["PATH=/usr/bin","X=a=b"],"cpu_class":"background"}`: `{"argv":["h"],"env":{"PATH":"/usr/bin","X":"a=b"},"cpu_class":"background"}`,
		`{"argv":["h"]}`: `{"argv":["h"],"env":{}}`,
		`{"argv":["h"],"env":["A=1"],"spec_version":3,"cpu_budget":{"seconds":600}}`: `{"argv":["h"],"env":{"A":"1"},"spec_version":3,"cpu_budget":{"seconds":600}}`,
	} {
		f := filepath.Join(t.TempDir(), "spec.json")
		os.WriteFile(f, []byte(in), 0o600)
		var argv []string
		for _, a := range m.SpawnSpecTranslate {
			argv = append(argv, strings.ReplaceAll(strings.ReplaceAll(a, "{spec}", f), "{{", "{"))
		}
		out, err := exec.Command(argv[0], argv[1:]...).Output()
		if err != nil || strings.TrimSpace(string(out)) != want {
			t.Errorf("%s: the translator printed %s (%v), want %s", b, out, err, want)
		}
		// The kit reads every translation back (issue 68): the docs' own must mean what it was given.
		if changes, err := launcher.SpawnSpecChanges([]byte(in), out); err != nil || len(changes) > 0 {
			t.Errorf("%s: the kit reads the translation of %s back as changed: %q (%v)", b, in, changes, err)
		}
	}
}

// Every CLASSPROOF_LAUNCHER_LIMITS value the docs show is one the kit takes.
func TestEveryBoundTheDocsShowIsTaken(t *testing.T) {
	re := regexp.MustCompile(`CLASSPROOF_LAUNCHER_LIMITS="([^"]*)"`)
	found := 0
	for _, b := range []string{"README.md", "docs/containment.md", "docs/manifest.md", "docs/install.md"} {
		text, err := os.ReadFile(filepath.Join(root(t), b))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(text), -1) {
			found++
			t.Setenv(contract.LauncherLimitsEnv, m[1])
			if _, err := limits.Launcher(1); err != nil {
				t.Errorf("%s: %s", b, err)
			}
		}
	}
	if found == 0 {
		t.Error("no CLASSPROOF_LAUNCHER_LIMITS example in the docs: docs/containment.md's Bounds shows one")
	}
}
