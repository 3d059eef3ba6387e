package manifest_test

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/classproof/classproof/fixtures/targets"
	"github.com/classproof/classproof/helpers/manifest"
)

// FuzzParseManifest: a manifest is the launcher team's file. Whatever it holds, Parse refuses it
// naming the file or gives a manifest whose vars, with any --var, expand within their bound or
// are refused; nothing panics and nothing grows without bound.
func FuzzParseManifest(f *testing.F) {
	names, err := fs.Glob(targets.FS, "*.yaml")
	if err != nil || len(names) == 0 {
		f.Fatalf("no embedded manifests to seed from: %v", err)
	}
	for _, n := range names {
		b, err := fs.ReadFile(targets.FS, n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, "bin=/opt/bin")
	}
	f.Add([]byte("name: x\nvars:\n  a: '{b}{b}'\n  b: '{a}'\n"), "a={a}{a}")
	f.Fuzz(func(t *testing.T, b []byte, setVar string) {
		m, err := manifest.Parse("fuzz.yaml", b)
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.yaml") && !strings.Contains(err.Error(), "target") {
				t.Fatalf("an error that names neither the file nor the target: %v", err)
			}
			return
		}
		if m.Source != "fuzz.yaml" {
			t.Fatalf("parsed manifest says it came from %q", m.Source)
		}
		if m.SetVars([]string{setVar}) != nil {
			return
		}
		vals, err := m.ResolveVars(map[string]string{"repo": "/src", "kit": "/kit", "bin": "/bin"})
		if err != nil {
			return
		}
		for k, v := range vals {
			if len(v) > manifest.MaxVarBytes {
				t.Fatalf("var %s expanded to %d bytes, over the bound %d", k, len(v), manifest.MaxVarBytes)
			}
		}
	})
}
