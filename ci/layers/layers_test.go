package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func testRules(t *testing.T) *rules {
	t.Helper()
	p := filepath.Join(t.TempDir(), "rules")
	text := "level 1: helpers/base/contract helpers/base/files\nlevel 2: helpers/base/proc\nforbid helpers/... but helpers/suite -> github.com/onsi/ginkgo/v2\n"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := readRules(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestEachCrossingIsNamed(t *testing.T) {
	r := testRules(t)
	pkgs := []pkg{
		{ImportPath: full("helpers/base/proc"), Deps: []string{full("helpers/base/contract")}},  // down: fine
		{ImportPath: full("helpers/base/contract"), Deps: []string{full("helpers/base/proc")}},  // up
		{ImportPath: full("helpers/base/files"), Deps: []string{full("helpers/base/contract")}}, // same level
		{ImportPath: full("helpers/newpkg")},                                                    // on no level
		{ImportPath: full("helpers/base/proc/x"), Deps: []string{"github.com/onsi/ginkgo/v2"}},  // forbidden
		{ImportPath: full("helpers/suite"), Deps: []string{"github.com/onsi/ginkgo/v2"}},        // exempt
		{ImportPath: full("suites/cpuclass"), Deps: []string{"github.com/onsi/ginkgo/v2/x"}},    // no rule
	}
	got := strings.Join(r.check("rules", pkgs), "\n")
	for _, want := range []string{
		"helpers/base/contract (level 1) depends on helpers/base/proc (level 2)",
		"helpers/base/files (level 1) depends on helpers/base/contract (level 1)",
		"helpers/newpkg is on no level",
		"helpers/base/proc/x depends on github.com/onsi/ginkgo/v2 (forbidden by rules:3)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "\n") + 1; n != 6 { // helpers/base/proc/x and helpers/suite are on no level too
		t.Errorf("%d findings, want 6:\n%s", n, got)
	}
}

func TestAStrayImportGroupIsNamed(t *testing.T) {
	dir := t.TempDir()
	write := func(name, imports string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("package x\n\nimport (\n"+imports+")\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.go", "\t\"fmt\"\n\t\"os\"\n\n\t\"github.com/onsi/gomega\"\n\n\t\"github.com/classproof/classproof/helpers/proc\"\n")
	stray := write("stray.go", "\t\"fmt\"\n\n\t\"github.com/classproof/classproof/helpers/label\"\n\n\t\"github.com/classproof/classproof/helpers/proc\"\n")
	mixed := write("mixed.go", "\t\"fmt\"\n\t\"github.com/onsi/gomega\"\n")
	if bad := groupsOf([]string{good}); len(bad) != 0 {
		t.Errorf("a goimports -local block was refused: %v", bad)
	}
	if bad := groupsOf([]string{stray}); len(bad) != 1 || !strings.Contains(bad[0], "stray.go: 3 groups") {
		t.Errorf("a stray group: %v", bad)
	}
	if bad := groupsOf([]string{mixed}); len(bad) != 1 || !strings.Contains(bad[0], "github.com/onsi/gomega is in a group of the standard library") {
		t.Errorf("a mixed group: %v", bad)
	}
}
