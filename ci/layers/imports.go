package main

import (
	"fmt"
	"go/parser"
	"go/token"
	"os/exec"
	"strconv"
	"strings"
)

// kind is where an import belongs: goimports -local's three groups, in their order.
func kind(path string) int {
	first, _, _ := strings.Cut(path, "/")
	switch {
	case !strings.Contains(first, "."):
		return 0 // the standard library
	case path == module || strings.HasPrefix(path, module+"/"):
		return 2
	}
	return 1
}

var kindName = []string{"the standard library", "third parties", "classproof"}

// importGroups names every tracked Go file whose import block is not one group of each kind in
// order (a stray group is how a helper added above the block hides).
func importGroups() []string {
	out, err := exec.Command("git", "ls-files", "*.go").Output()
	if err != nil {
		return []string{"ci/layers: git ls-files: " + err.Error() + " (run it in a git checkout)"}
	}
	return groupsOf(strings.Fields(string(out)))
}

func groupsOf(names []string) []string {
	var bad []string
	fset := token.NewFileSet()
	for _, name := range names {
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			bad = append(bad, "ci/layers: "+err.Error())
			continue
		}
		var kinds []int // the kind of each group, in order
		lastLine := -2
		for _, s := range f.Imports {
			p, _ := strconv.Unquote(s.Path.Value)
			line := fset.Position(s.Pos()).Line
			if s.Doc != nil {
				line = fset.Position(s.Doc.Pos()).Line
			}
			k := kind(p)
			if line > lastLine+1 || len(kinds) == 0 {
				kinds = append(kinds, k)
			} else if kinds[len(kinds)-1] != k {
				bad = append(bad, fmt.Sprintf("imports: %s: %s is in a group of %s", name, p, kindName[kinds[len(kinds)-1]]))
			}
			lastLine = fset.Position(s.End()).Line
		}
		for i := 1; i < len(kinds); i++ {
			if kinds[i] <= kinds[i-1] {
				bad = append(bad, fmt.Sprintf("imports: %s: %d groups, want one each of the standard library, third parties, classproof, in that order (goimports -local %s)", name, len(kinds), module))
				break
			}
		}
	}
	return bad
}
