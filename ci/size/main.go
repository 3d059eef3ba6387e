// Command size holds the kit's code to the sizes a reader can take in at once: no function in
// helpers/, cmd/ or the reference launcher (fixtures/refmux) over 60 lines, no file there over
// 300 (tests aside) unless a "// size: WHY" line near its top says why it is one concept that long
// (issue 70: files were split by size, not concept, just under the old 400); and the repository to source: no committed executable (ELF, Mach-O)
// and no committed file over 1 MiB, which a build output is (a refmux binary was committed
// twice); and commit subjects at most 72 characters. `make static` runs it from the
// repository's root; it prints each one over and exits 1.
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

const (
	maxFunc = 60  // lines, in helpers/, cmd/ and fixtures/refmux/
	maxFile = 300 // lines, in helpers/, cmd/ and fixtures/refmux/, unless the file says why
)

func main() {
	var over []string
	fset := token.NewFileSet()
	for _, root := range []string{"helpers", "cmd", "fixtures/refmux"} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
			if err != nil {
				return err
			}
			if n := fset.File(f.Pos()).LineCount(); n > maxFile && !saysWhy(f) {
				over = append(over, fmt.Sprintf("%s: %d lines (at most %d, unless a \"// size: WHY\" comment says why it is one concept that long)", p, n, maxFile))
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
	over = append(over, committedOutputs()...)
	over = append(over, longSubjects()...)
	for _, o := range over {
		fmt.Println("ci/size:", o)
	}
	if len(over) > 0 {
		os.Exit(1)
	}
	fmt.Println("ci/size: no function in helpers/, cmd/ or fixtures/refmux/ over 60 lines, no file there over 300 that does not say why, no committed executable or file over 1 MiB, no commit subject over 72 characters")
}

// subjectsSince is the commit from which on every subject is at most maxSubject characters: the
// history before it is published and stays as it is.
const (
	subjectsSince = "79e2ac1"
	maxSubject    = 72
)

// longSubjects names every commit after subjectsSince whose subject is over maxSubject
// characters. A clone without that commit (a shallow one) is not checked, and says so.
func longSubjects() []string {
	out, err := exec.Command("git", "log", "--format=%h %s", subjectsSince+"..HEAD").Output()
	if err != nil {
		fmt.Println("ci/size: commit subjects not checked: no " + subjectsSince + " in this clone (shallow?)")
		return nil
	}
	var bad []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if h, subject, ok := strings.Cut(line, " "); ok && len([]rune(subject)) > maxSubject {
			bad = append(bad, fmt.Sprintf("commit %s: a subject of %d characters (at most %d): %q", h, len([]rune(subject)), maxSubject, subject))
		}
	}
	return bad
}

// maxCommitted is the largest file the repository may hold: source, docs and small fixtures.
const maxCommitted = 1 << 20

// committedOutputs names every file git tracks that is an executable binary (ELF, Mach-O, fat
// Mach-O) or over maxCommitted bytes.
func committedOutputs() []string {
	out, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil {
		return []string{"git ls-files: " + err.Error() + " (run make static in a git checkout)"}
	}
	var bad []string
	for _, p := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		f, err := os.Open(p)
		if err != nil {
			continue // deleted in the work tree, not yet in the index
		}
		head := make([]byte, 4)
		n, _ := f.Read(head)
		fi, _ := f.Stat()
		f.Close()
		switch {
		case fi != nil && fi.Size() > maxCommitted:
			bad = append(bad, fmt.Sprintf("%s: a committed file of %d bytes (at most %d): a build output? git rm --cached it and ignore it", p, fi.Size(), maxCommitted))
		case n == 4 && isBinary(head):
			bad = append(bad, fmt.Sprintf("%s: a committed executable: git rm --cached it and ignore it", p))
		}
	}
	return bad
}

func isBinary(h []byte) bool {
	switch string(h) {
	case "\x7fELF", "\xcf\xfa\xed\xfe", "\xce\xfa\xed\xfe", "\xfe\xed\xfa\xcf", "\xfe\xed\xfa\xce", "\xca\xfe\xba\xbe":
		return true
	}
	return false
}

// saysWhy reports whether a file carries a "// size: WHY" comment before its first declaration:
// a file that is one concept longer than maxFile says so where a reader starts.
func saysWhy(f *ast.File) bool {
	for _, g := range f.Comments {
		if len(f.Decls) > 0 && g.Pos() > f.Decls[0].Pos() {
			break
		}
		for _, c := range g.List {
			if strings.HasPrefix(c.Text, "// size: ") && len(strings.TrimSpace(strings.TrimPrefix(c.Text, "// size: "))) > 0 {
				return true
			}
		}
	}
	return false
}
