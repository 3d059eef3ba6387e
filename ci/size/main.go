// Command size holds the kit's code to the sizes a reader can take in at once: no function in
// helpers/, cmd/ or the reference launcher (fixtures/refmux) over 60 lines, no file in helpers/
// over 400 (tests aside). `make static` runs
// it from the repository's root; it prints each one over and exits 1.
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

const (
	maxFunc = 60  // lines, in helpers/, cmd/ and fixtures/refmux/
	maxFile = 400 // lines, in helpers/
)

func main() {
	var over []string
	fset := token.NewFileSet()
	for _, root := range []string{"helpers", "cmd", "fixtures/refmux"} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(fset, p, nil, 0)
			if err != nil {
				return err
			}
			if n := fset.File(f.Pos()).LineCount(); root == "helpers" && n > maxFile {
				over = append(over, fmt.Sprintf("%s: %d lines (at most %d in helpers/)", p, n, maxFile))
			}
			for _, decl := range f.Decls {
				if fn, ok := decl.(*ast.FuncDecl); ok && fn.Body != nil {
					if n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; n > maxFunc {
						over = append(over, fmt.Sprintf("%s: func %s is %d lines (at most %d)", p, fn.Name.Name, n, maxFunc))
					}
				}
			}
			return nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "ci/size:", err)
			os.Exit(2)
		}
	}
	for _, o := range over {
		fmt.Println("ci/size:", o)
	}
	if len(over) > 0 {
		os.Exit(1)
	}
	fmt.Println("ci/size: no function in helpers/, cmd/ or fixtures/refmux/ over 60 lines, no file in helpers/ over 400")
}
