package manifest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/label"
	"github.com/classproof/classproof/helpers/oracle"
)

const good = `
name: t
class_env: T_CLASS
background: {darwin: darwinbg, linux: idle}
daemon: {run: ["{bin}/t", daemon, "{socket}"]}
session:
  direct: ["{bin}/t", run, "{profile}"]
  hosted: ["{bin}/t", run, --hosted, "{profile}"]
`

// shipped are the kit's manifests, read as files: helpers/ does not import fixtures/.
var shipped = os.DirFS(filepath.Join("..", "..", "fixtures", "targets"))

func TestShippedManifestsAreValid(t *testing.T) {
	for _, name := range []string{"refmux.yaml", "refmux-seed.yaml", "shmux.yaml", "shmux-bare.yaml"} {
		if _, err := LoadFS(shipped, name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestManifestErrorsNameFieldAndValue(t *testing.T) {
	cases := map[string]struct {
		edit func(string) string
		want []string
	}{
		"unknown placeholder": {func(s string) string { return strings.Replace(s, "{socket}", "{sockt}", 1) },
			[]string{"daemon.run[2]", "unknown placeholder {sockt}", "{socket}"}},
		"profile outside a session": {func(s string) string { return strings.Replace(s, `"{socket}"]}`, `"{profile}"]}`, 1) },
			[]string{"daemon.run[2]", "{profile}"}},
		"missing command": {func(s string) string {
			return strings.Replace(s, `  direct: ["{bin}/t", run, "{profile}"]`, "", 1)
		},
			[]string{"session.direct: missing command"}},
		"unknown placeholder in an env map": {func(s string) string {
			return strings.Replace(s, `daemon: {run: ["{bin}/t", daemon, "{socket}"]}`, `daemon: {run: ["{bin}/t", daemon, "{socket}"], env: {T_HOME: "{hme}"}}`, 1)
		},
			[]string{"daemon.env.T_HOME[0]", "unknown placeholder {hme}"}},
		"var shadows a built-in": {func(s string) string { return s + "vars: {bin: \"{repo}/bin\"}\n" },
			[]string{"vars.bin", "cannot shadow"}},
		"var cycle": {func(s string) string { return s + "vars: {a: \"{b}/x\", b: \"{a}/y\"}\n" },
			[]string{"vars: a cycle: a -> b -> a"}},
		"var with an unknown placeholder": {func(s string) string { return s + "vars: {out: \"{home}/x\"}\n" },
			[]string{"vars.out", "unknown placeholder {home}"}},
		"two ready kinds": {func(s string) string {
			return strings.Replace(s, `daemon: {run: ["{bin}/t", daemon, "{socket}"]}`, `daemon: {run: ["{bin}/t", daemon, "{socket}"], ready: {socket: "{socket}", path: "{dir}/up"}}`, 1)
		},
			[]string{"daemon.ready: socket, path and exec are alternatives"}},
		"unknown convention": {func(s string) string { return s + "conventions: {refusals_name: [profile, colour]}\n" },
			[]string{"conventions.refusals_name", `"colour" is not known`}},
		"source without its pattern": {func(s string) string { return s + "conventions: {refusals_name: [source]}\n" },
			[]string{"conventions.refusal_sources.daemon: needed"}},
		"misspelt key": {func(s string) string { return strings.Replace(s, "class_env", "class_evn", 1) },
			[]string{"class_evn", "not found"}},
		"bad background": {func(s string) string { return strings.Replace(s, "linux: idle", "linux: nice", 1) },
			[]string{"background.linux", `"nice"`, "accepted: idle, ignore"}},
		"sites_env not a name": {func(s string) string { return s + "sites_env: \"T SITES\"\n" },
			[]string{"sites_env", `"T SITES"`, "an environment variable's name"}},
		"sites_env the kit's": {func(s string) string { return s + "sites_env: CLASSPROOF_SITES\n" },
			[]string{"sites_env", `"CLASSPROOF_SITES"`, "not the kit's own (CLASSPROOF_...)"}},
		"sites_env the class's": {func(s string) string { return s + "sites_env: T_CLASS\n" },
			[]string{"sites_env", `"T_CLASS" is class_env or a variable the system reads`}},
		"sites_env TMPDIR": {func(s string) string { return s + "sites_env: TMPDIR\n" },
			[]string{"sites_env", `"TMPDIR" is class_env or a variable the system reads (PATH, HOME, TMPDIR`}},
		"sites_env a loader's": {func(s string) string { return s + "sites_env: LD_PRELOAD\n" },
			[]string{"sites_env", `"LD_PRELOAD" is class_env or a variable the system reads`}},
	}
	for name, c := range cases {
		_, err := Parse("m.yaml", []byte(c.edit(good)))
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error lacks %q: %v", name, w, err)
			}
		}
		if !strings.Contains(err.Error(), "m.yaml") {
			t.Errorf("%s: error does not name the manifest: %v", name, err)
		}
	}
}

func TestVarsOnlyDeclaredOnes(t *testing.T) {
	m, err := LoadFS(shipped, "refmux.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.SetVars([]string{"variant=noclass"}); err != nil || m.Vars["variant"] != "noclass" {
		t.Fatalf("got %v %v", err, m.Vars)
	}
	if err := m.SetVars([]string{"varient=noclass"}); err == nil || !strings.Contains(err.Error(), "declares no var") {
		t.Fatalf("typo accepted: %v", err)
	}
}

func TestUnsupportedOSIsRefusedByName(t *testing.T) {
	m, err := Parse("m.yaml", []byte(strings.Replace(good, "darwin: darwinbg", "darwin: unsupported", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Meaning("darwin"); err == nil || !strings.Contains(err.Error(), "target t does not run on darwin") {
		t.Errorf("got %v", err)
	}
	if got, err := m.Meaning("linux"); err != nil || got != "idle" {
		t.Errorf("linux: %v %v", got, err)
	}
}

func TestVarsUseBuiltinsAndEachOther(t *testing.T) {
	m, err := Parse("m.yaml", []byte(good+"vars: {tools: \"{repo}/bin\", shmux: \"{tools}/shmux\"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.ResolveVars(map[string]string{"repo": "/src/l", "kit": "/k", "bin": "/b"})
	if err != nil || got["tools"] != "/src/l/bin" || got["shmux"] != "/src/l/bin/shmux" {
		t.Errorf("got %v %v", got, err)
	}
	if _, err := m.ResolveVars(map[string]string{"kit": "/k", "bin": "/b"}); err == nil || !strings.Contains(err.Error(), "{repo} has no value in this run") {
		t.Errorf("no repo: %v", err)
	}
}

// A target with only a daemon and direct sessions: every optional capability and convention it
// lacks is a left-out label with its reason, and the filter leaves those specs out.
func TestLeftOutNamesWhatTheTargetLacks(t *testing.T) {
	minimal := strings.Replace(good, `  hosted: ["{bin}/t", run, --hosted, "{profile}"]`+"\n", "", 1)
	m, err := Parse("m.yaml", []byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	lo := m.LeftOut(oracle.LinuxIdle)
	for _, l := range []string{label.NeedsHosted, label.NeedsConfig, label.NeedsExplain, label.NeedsEnvRef, label.NeedsSpawnSpec, label.ConvFoldCase, label.ConvEmptyUnset, label.ConvKeySpellings, label.Names(MentionProfile),
		label.ConvBadDaemonEnvSessions, label.ConvBadDaemonEnvStart, label.ConvMalformedConfigRefuse, label.ConvMalformedConfigAsUnset, label.ConvArgvControl} {
		if lo[l] == "" {
			t.Errorf("%s not left out: %v", l, lo)
		}
	}
	for _, l := range []string{label.ReadsResolved, label.RefusesClass, label.NeedsRawSpawnSpec} {
		if lo[l] != "" {
			t.Errorf("where the class is applied, %s is a promise; yet left out: %s", l, lo[l])
		}
	}
	if why := m.LeftOut(oracle.Ignored)[label.RefusesClass]; !strings.Contains(why, "conventions.refuses_when_ignored") {
		t.Errorf("where the class is ignored, refusing bad values is a convention: %q", why)
	}
	if f := LeftOutFilter(m.LeftOut(oracle.LinuxIdle)); !strings.Contains(f, "!needs-hosted") || !strings.Contains(f, "!conv-fold-case") {
		t.Errorf("filter %q", f)
	}
	ref, err := LoadFS(shipped, "refmux.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// refmux declares everything: of each two-way choice, its own way.
	otherWay := map[string]bool{label.ConvBadDaemonEnvStart: true, label.ConvMalformedConfigAsUnset: true}
	for l, why := range ref.LeftOut(oracle.Ignored) {
		if !otherWay[l] {
			t.Errorf("refmux declares everything, yet left out %s: %s", l, why)
		}
	}
}

// A literal brace in a command (jq's {} and {name}) is written {{; "}" needs no escape.
func TestALiteralBraceIsWrittenTwice(t *testing.T) {
	withJq := good + `spawn_spec: [sh, -c, 'jq -c "{{(.k): .v}, {{name} // {{}" "$1"', "{bin}/t", "{spec}"]
host: {run: ["{bin}/t", host, "{host_socket}"]}
`
	m, err := Parse("m.yaml", []byte(withJq))
	if err != nil {
		t.Fatalf("a manifest with escaped braces: %v", err)
	}
	got, err := ExpandList(m.SpawnSpec, map[string]string{"bin": "/b", "spec": "/s.json"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `jq -c "{(.k): .v}, {name} // {}" "$1"`; got[2] != want {
		t.Errorf("expanded %q, want %q", got[2], want)
	}
	_, err = Parse("m.yaml", []byte(strings.Replace(withJq, "// {{}", "// {}", 1)))
	if err == nil || !strings.Contains(err.Error(), "unknown placeholder {}") || !strings.Contains(err.Error(), "write {{ for a literal {") {
		t.Errorf("an unescaped {}: %v", err)
	}
}

// The seed's own Linux behaviour, with no explain: a valid manifest. In its lane the specs that
// read which class resolved are left out with the reason; everything that observes runs.
func TestIgnoreWithoutExplainIsValid(t *testing.T) {
	seed := strings.Replace(good, "linux: idle", "linux: ignore", 1)
	m, err := Parse("m.yaml", []byte(seed))
	if err != nil {
		t.Fatalf("ignore mode without explain refused: %v", err)
	}
	lo := m.LeftOut(oracle.Ignored)
	if !strings.Contains(lo[label.ReadsResolved], "ignores the class here and declares no explain") {
		t.Errorf("reads-resolved not left out in the ignore lane: %v", lo)
	}
	if lo := m.LeftOut(oracle.DarwinBG); lo[label.ReadsResolved] != "" {
		t.Errorf("on macOS the class is applied and shows what resolved; yet left out: %s", lo[label.ReadsResolved])
	}
}

// $CLASSPROOF_VARS carries values with spaces and quotes intact from the CLI to the suites.
func TestVarsRoundTripToTheSuites(t *testing.T) {
	in := []string{"variant=noclass", `note=a "b" c`, "empty="}
	out, err := contract.DecodeVars(contract.EncodeVars(in))
	if err != nil || strings.Join(out, "|") != strings.Join(in, "|") {
		t.Errorf("got %q %v, want %q", out, err, in)
	}
	if _, err := contract.DecodeVars("variant=noclass note=x"); err == nil {
		t.Error("an old space-joined value was taken")
	}
}

func TestReadsRepo(t *testing.T) {
	for _, c := range []struct {
		name, extra string
		want        bool
	}{
		{"a build in {repo}", "build: {dir: \"{repo}\", run: [make]}\n", true},
		{"a build naming {repo} in its arguments", "build: {run: [make, -C, \"{repo}\"]}\n", true},
		{"a build in an absolute folder", "build: {dir: /src/myl, run: [make]}\n", false},
		{"a build in the kit (no dir)", "build: {run: [make]}\n", false},
		{"a build through a var that reads {repo}", "vars: {src: \"{repo}/cmd\"}\nbuild: {run: [go, build, \"{src}\"]}\n", true},
	} {
		m, err := Parse("m.yaml", []byte(good+c.extra))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if ok, why := m.ReadsRepo(); ok != c.want || (!ok && !strings.Contains(why, "read nothing of {repo}")) {
			t.Errorf("%s: ReadsRepo = %v, %q; want %v", c.name, ok, why, c.want)
		}
	}
	// No build step: the daemon's command decides.
	m, err := Parse("m.yaml", []byte(strings.Replace(good, `"{bin}/t", daemon`, `"{repo}/t", daemon`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if ok, why := m.ReadsRepo(); !ok {
		t.Errorf("a daemon run from {repo}: %s", why)
	}
	m, _ = Parse("m.yaml", []byte(good))
	if ok, _ := m.ReadsRepo(); ok {
		t.Error("a daemon run from {bin} with no build step read as reading {repo}")
	}
}

// A var that doubles another 24 times would take 16 MiB per level of the run's memory (731 MB and
// 5 s once): it stops at the bound, with an error naming the var.
func TestAVarThatExplodesIsRefusedByName(t *testing.T) {
	vars := "vars:\n  v0: \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"\n"
	for i := 1; i <= 24; i++ {
		vars += fmt.Sprintf("  v%d: \"{v%d}{v%d}\"\n", i, i-1, i-1)
	}
	m, err := Parse("m.yaml", []byte(good+vars))
	if err == nil {
		began := time.Now()
		_, err = m.ResolveVars(map[string]string{"kit": "/kit", "bin": "/bin", "repo": "/repo"})
		if took := time.Since(began); took > time.Second {
			t.Errorf("refusing took %v", took)
		}
	}
	if err == nil || !strings.Contains(err.Error(), "expands to more than 65536 bytes") || !strings.Contains(err.Error(), "vars.v") {
		t.Fatalf("an exploding var: %v", err)
	}
}

// A value is bounded whole: a 70000-byte --var (or manifest value) with no placeholder in it was
// accepted, the bound counting only what placeholders add.
func TestAVarTooLongAsWrittenIsRefusedByName(t *testing.T) {
	m, err := Parse("m.yaml", []byte(good+"vars:\n  v: \"x\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.SetVars([]string{"v=" + strings.Repeat("y", 70000)}); err != nil {
		t.Fatal(err)
	}
	_, err = m.ResolveVars(map[string]string{"kit": "/kit", "bin": "/bin"})
	if err == nil || !strings.Contains(err.Error(), "vars.v: 70000 bytes, more than 65536") {
		t.Errorf("a 70000-byte var: %v; want it refused by name", err)
	}
}

// A host alone is not enough for the raw spawn-spec specs: they need the command that hands
// the host a spec as is.
func TestAHostWithoutASpawnSpecCommandLeavesOutTheSpawnSpecSpecs(t *testing.T) {
	m, err := LoadFS(shipped, "refmux.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if m.Host == nil || len(m.SpawnSpec) == 0 {
		t.Fatal("refmux.yaml declares a host and a spawn_spec command; this test needs both")
	}
	if lo := m.LeftOut(oracle.LinuxIdle); lo[label.NeedsSpawnSpec] != "" {
		t.Fatalf("left out with both declared: %s", lo[label.NeedsSpawnSpec])
	}
	m.SpawnSpec = nil
	if lo := m.LeftOut(oracle.LinuxIdle); lo[label.NeedsSpawnSpec] == "" {
		t.Errorf("a host with no spawn_spec command: %s not left out: %v", label.NeedsSpawnSpec, lo)
	}
}

// writes and build.writes are checked when the manifest loads, like every other field.
func TestWritesAreCheckedWhenTheManifestLoads(t *testing.T) {
	ref, err := os.ReadFile("../../fixtures/targets/shmux.yaml")
	if err != nil {
		t.Fatal(err)
	}
	body := string(ref) + "\nwrites: [relative/dir, \"{nope}/x\"]\n"
	body = strings.Replace(body, "build:\n", "build:\n  writes: [\"{cache}/ok\", tmp]\n", 1)
	_, err = Parse("m.yaml", []byte(body))
	for _, want := range []string{`writes[0] "relative/dir": not an absolute path`, `writes[1] "{nope}/x": unknown placeholder {nope}`, `build.writes[1] "tmp": not an absolute path`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want %q in %v", want, err)
		}
	}
}

// spawn_spec_rewrites means something only beside a spawn_spec command: declared with one it is
// taken, without one it is refused by name.
func TestSpawnSpecRewritesNeedsASpawnSpecCommand(t *testing.T) {
	m, err := LoadFS(shipped, "refmux.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m.SpawnSpecRewrites = true
	if err := m.Validate(); err != nil {
		t.Errorf("spawn_spec_rewrites beside a spawn_spec command was refused: %v", err)
	}
	m.SpawnSpec = nil
	if err := m.Validate(); err == nil || !strings.Contains(err.Error(), "spawn_spec_rewrites: declared, but the target has no spawn_spec command") {
		t.Errorf("spawn_spec_rewrites without a spawn_spec command: %v", err)
	}
}

// A translator needs the command that sends its bytes, and contradicts an adapter that rewrites.
func TestASpawnSpecTranslatorIsChecked(t *testing.T) {
	host := "host: {run: [\"{bin}/t\", host]}\n"
	for extra, want := range map[string]string{
		"spawn_spec_translate: [jq, -c, ., \"{spec}\"]\n":                                                                         "spawn_spec_translate: needs spawn_spec",
		"spawn_spec_translate: [jq, -c, ., \"{spec}\"]\nspawn_spec: [\"{bin}/t\", send, \"{spec}\"]\nspawn_spec_rewrites: true\n": "spawn_spec_rewrites says the opposite",
		"spawn_spec_translate: [jq, -c, ., \"{nope}\"]\nspawn_spec: [\"{bin}/t\", send, \"{spec}\"]\n":                            "nope",
	} {
		if _, err := Parse("m.yaml", []byte(good+host+extra)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v; want an error with %q", extra, err, want)
		}
	}
	if _, err := Parse("m.yaml", []byte(good+host+"spawn_spec_translate: [jq, -c, ., \"{spec}\"]\nspawn_spec: [\"{bin}/t\", send, \"{spec}\"]\n")); err != nil {
		t.Errorf("a translator and its sender: %v", err)
	}
}

// An adapter that rewrites specs (spawn_spec_rewrites) sends its host what the kit never reads:
// every spawn-spec spec is left out for it, the meaning specs too (a second hostile review: a
// rewriting adapter that turned "no cpu_class" into normal passed 13 of 13 against a host that
// starts such a spec at background).
func TestARewritingSpawnSpecLeavesOutEverySpawnSpecSpec(t *testing.T) {
	m, err := Parse("m.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	m.Host = &Service{Run: []string{"{bin}/h"}}
	m.SpawnSpec = []string{"{bin}/t", "send", "{spec}"}
	m.SpawnSpecRewrites = true
	lo := m.LeftOut(oracle.LinuxIdle)
	for _, l := range []string{label.NeedsSpawnSpec, label.NeedsRawSpawnSpec} {
		if !strings.Contains(lo[l], "spawn_spec_rewrites") {
			t.Errorf("a rewriting spawn_spec: %s left out for %q, want the reason naming spawn_spec_rewrites", l, lo[l])
		}
	}
	m.SpawnSpecRewrites = false
	if why, out := m.LeftOut(oracle.LinuxIdle)[label.NeedsSpawnSpec]; out {
		t.Errorf("a spawn_spec that passes bytes through: the spawn-spec specs were left out: %s", why)
	}
}
