package main

import (
	"go/parser"
	"go/token"
	"testing"
)

// A file says why it is long with a "// size: WHY" line above its first declaration; an empty
// reason, or one further down (a comment inside the code), says nothing.
func TestAFileSaysWhyItIsLongAtItsTop(t *testing.T) {
	for src, want := range map[string]bool{
		"// Package p is p.\n// size: one table of every syscall, row by row\npackage p\n\nvar x = 1\n": true,
		"package p\n\n// size: one state machine, its states in order\n\nvar x = 1\n":                   true,
		"package p\n\n// size: \nvar x = 1\n":                                                           false,
		"package p\n\nvar x = 1\n\n// size: said too late\nvar y = 2\n":                                 false,
		"package p\n\nvar x = 1\n":                                                                      false,
	} {
		f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if got := saysWhy(f); got != want {
			t.Errorf("saysWhy(%q) = %v; want %v", src, got, want)
		}
	}
}
