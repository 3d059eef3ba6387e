//go:build e2e

package runner_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A host whose spawn specs take env as an object, and which reads only the first line of a spec
// (a real regression: data after the object goes unseen), is in front of refmux's host here. Through
// the docs' adapter, which passes what is not exactly one object through unchanged, "data after
// the object" passed: refused for its env array (the kit's format on the first line), not for the
// data after it. Through a translator (spawn_spec_translate), the kit builds that spec from a
// translated good one: the host starts the first object's harness, and the spec fails (issue 44).
// The same translator in front of a host that reads the whole spec passes every compat spec.
func TestOneDefectPerBadSpecThroughATranslator(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and starts runs")
	}
	dir := reachable(t)
	toRefmux := `.env = ((.env // {}) | if type == "object" then to_entries | map(.key + "=" + .value) else error("env must be an object, not \(type)") end)`
	scripts := map[string]string{
		// Our host, front half: env an object; only the first line read.
		// What it writes goes to its TMPDIR: the spec it is handed is in a folder of the kit's
		// that launcher processes may only read.
		"firstline.sh": `refmux=$1 sock=$2 spec=$3 t=$(mktemp) || exit 1
head -n 1 "$spec" | jq -c '` + toRefmux + `' >"$t.refmux" 2>"$t.err" || { cat "$t.err"; exit 1; }
exec "$refmux" spawn-spec --socket "$sock" --file "$t.refmux"`,
		// The same host, mended: the whole spec read, one object or a refusal.
		"whole.sh": `refmux=$1 sock=$2 spec=$3 t=$(mktemp) || exit 1
[ "$(wc -c <"$spec")" -le 1048576 ] || { echo "spec over 1 MiB"; exit 1; }
jq -cse 'if length != 1 then error("data after the object") else .[0] end | ` + toRefmux + `' "$spec" >"$t.refmux" 2>"$t.err" || { cat "$t.err"; exit 1; }
exec "$refmux" spawn-spec --socket "$sock" --file "$t.refmux"`,
		// The docs' adapter (docs/manifest.md): one object rewritten, anything else passed as is.
		"adapter.sh": `front=$1 refmux=$2 sock=$3 spec=$4 t=$(mktemp) || exit 1
if [ "$(wc -c <"$spec")" -le 1048576 ] && [ "$(jq -s length "$spec" 2>/dev/null)" = 1 ]; then
  jq -c '.env = ((.env // []) | map(capture("(?<k>[^=]*)=(?<v>.*)") | {(.k): .v}) | add // {})' "$spec" >"$t.host"
else
  cp "$spec" "$t.host"
fi
exec sh "$front" "$refmux" "$sock" "$t.host"`,
	}
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := `spawn_spec: ["{bin}/refmux", spawn-spec, --socket, "{host_socket}", --file, "{spec}"]`
	translate := `spawn_spec_translate: [jq, -c, '.env = ((.env // []) | map(capture("(?<k>[^=]*)=(?<v>.*)") | {{(.k): .v}) | add // {{})', "{spec}"]`
	adapted := hostile(t, old, `spawn_spec: [sh, "`+dir+`/adapter.sh", "`+dir+`/firstline.sh", "{bin}/refmux", "{host_socket}", "{spec}"]`)
	translated := hostile(t, old, translate+"\n"+`spawn_spec: [sh, "`+dir+`/firstline.sh", "{bin}/refmux", "{host_socket}", "{spec}"]`)
	mended := hostile(t, old, translate+"\n"+`spawn_spec: [sh, "`+dir+`/whole.sh", "{bin}/refmux", "{host_socket}", "{spec}"]`)
	const after = "data after the object, on the next line"
	passed := regexp.MustCompile(`specs: [1-9]\d* ran, [1-9]\d* passed, 0 failed`)

	code, log, _ := runCLI(t, nil, "run", "--target", adapted, "--suite", "./suites/compat", "--focus", after, "--out", t.TempDir())
	if code != 0 || !passed.MatchString(log) {
		t.Errorf("through the adapter: exit %d, want 0: the blind spot this test shows is gone, or the setup broke:\n%s", code, log)
	}
	code, log, _ = runCLI(t, nil, "run", "--target", translated, "--suite", "./suites/compat", "--focus", after, "--out", t.TempDir())
	if code != 1 || !strings.Contains(log, "[FAILED]") || !strings.Contains(log, after) {
		t.Errorf("through the translator, a host that reads one line: exit %d, want 1, %q failed:\n%s", code, after, log)
	}
	code, log, _ = runCLI(t, nil, "run", "--target", mended, "--suite", "./suites/compat", "--out", t.TempDir())
	if code != 0 || !passed.MatchString(log) {
		t.Errorf("through the translator, a host that reads the whole spec: exit %d, want 0, every compat spec passed:\n%s", code, log)
	}
}

// hostileTranslator is issue 68's: it writes an older daemon's spec (no cpu_class) as normal,
// drops the fields a newer daemon adds, and tags the env of every spec with a cpu_class with one
// harmless entry naming what it dropped, so that no two specs come out the same. Each spec then
// stays distinct (what the kit checked before), and two known-bad hosts passed compat through it:
// missing-as-background and strict-fields, each 13 of 13, exit 0 (12 passed, 1 failed without it).
const hostileTranslator = `spawn_spec_translate: [jq, -c, '(keys - ["argv", "env", "cwd", "cpu_class"]) as $x | if has("cpu_class") then .env += ["CLASSPROOF_NOTE=" + ($x | join(","))] else .cpu_class = "normal" end | with_entries(select(.key | IN("argv", "env", "cwd", "cpu_class")))', "{spec}"]`

// A translator is judged by what each spec means, read back: through the hostile translator, the
// spec each known-bad host breaks fails, naming the translator and the field it changed (issue 68;
// the normalising translator of issue 54, cpu_class defaulted and unknown fields dropped, is its
// first half).
func TestATranslatorThatErasesMeaningCannotPassAKnownBadHost(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and starts runs")
	}
	old := `spawn_spec: ["{bin}/refmux", spawn-spec, --socket, "{host_socket}", --file, "{spec}"]`
	m := hostile(t, old, hostileTranslator+"\n"+old)
	for variant, c := range map[string]struct{ spec, change string }{
		"missing-as-background": {"an older daemon's spec", `cpu_class: the kit's spec has none, the translation \\"normal\\"`},
		"strict-fields":         {"ignores the fields a newer daemon adds", `cpu_budget: the kit's spec has \{.{0,80}\}, the translation none`},
	} {
		changed := regexp.MustCompile(`spawn_spec_translate \\"jq -c .{0,600}? changed what a spawn spec means, not only its format: ` + c.change)
		out := t.TempDir()
		code, log, _ := runCLI(t, nil, "run", "--target", m, "--var", "variant="+variant, "--suite", "./suites/compat", "--out", out)
		rep, _ := os.ReadFile(filepath.Join(out, "report.json"))
		if code != 1 || !strings.Contains(log, c.spec) || !changed.Match(rep) {
			t.Errorf("%s through a translator that erases meaning: exit %d, want 1 with the spec %q failed naming the translator and %s:\n%s", variant, code, c.spec, c.change, log)
		}
	}
}
