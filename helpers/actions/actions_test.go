package actions

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// GitHub's workflow-command rules: in data, % CR LF are escaped; in a property, also : and ,.
func TestEscaping(t *testing.T) {
	if got := EscapeData("50% of\r\nspecs: a, b"); got != "50%25 of%0D%0Aspecs: a, b" {
		t.Errorf("data: %q", got)
	}
	if got := EscapeProperty("cpuclass: a, b 100%\n"); got != "cpuclass%3A a%2C b 100%25%0A" {
		t.Errorf("property: %q", got)
	}
	var b bytes.Buffer
	Error(&b, "resolve: rows, 27", "FAIL direct harness pid 1: ps cls TS\nexpected IDL")
	if want := "::error title=resolve%3A rows%2C 27::FAIL direct harness pid 1: ps cls TS%0Aexpected IDL\n"; b.String() != want {
		t.Errorf("annotation %q, want %q", b.String(), want)
	}
}

func TestSummaryOnlyInActions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "summary.md")
	t.Setenv("GITHUB_STEP_SUMMARY", path)
	t.Setenv("GITHUB_ACTIONS", "")
	if err := Summary("# x"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("a summary was written outside Actions")
	}
	t.Setenv("GITHUB_ACTIONS", "true")
	Summary("# one")
	Summary("# two")
	if b, _ := os.ReadFile(path); string(b) != "# one\n# two\n" {
		t.Errorf("summary %q", b)
	}
}
