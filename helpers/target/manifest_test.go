package target

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/classproof/classproof/fixtures/targets"
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

func TestShippedManifestsAreValid(t *testing.T) {
	for _, name := range []string{"refmux.yaml", "refmux-seed.yaml"} {
		if _, err := LoadFS(targets.FS, name); err != nil {
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
			return strings.Replace(s, `  hosted: ["{bin}/t", run, --hosted, "{profile}"]`, "", 1)
		},
			[]string{"session.hosted: missing command"}},
		"misspelt key": {func(s string) string { return strings.Replace(s, "class_env", "class_evn", 1) },
			[]string{"class_evn", "not found"}},
		"bad background": {func(s string) string { return strings.Replace(s, "linux: idle", "linux: nice", 1) },
			[]string{"background.linux", `"nice"`, "accepted: idle, ignore"}},
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

func TestMissingBinaryIsOneClearError(t *testing.T) {
	m, err := Parse("m.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	harness := filepath.Join(t.TempDir(), "harness")
	os.WriteFile(harness, nil, 0o755)
	_, err = Open(m, Paths{Kit: "/kit", Bin: "/nonexistent/bin"}, harness)
	if err == nil || !strings.Contains(err.Error(), `daemon.run[0] "/nonexistent/bin/t"`) {
		t.Fatalf("got %v", err)
	}
}

func TestVarsOnlyDeclaredOnes(t *testing.T) {
	m, err := LoadFS(targets.FS, "refmux.yaml")
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
