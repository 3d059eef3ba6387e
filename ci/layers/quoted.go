package main

import (
	"fmt"
	"os"
	"strings"
)

// quotedBy are the docs that show the layers: each quotes the rules' "level N:" lines verbatim
// (in a fenced block), so the levels are written in one place and read the same everywhere.
var quotedBy = []string{"helpers/README.md", "docs/architecture.md"}

// quotes says, per doc, where its quote of the level lines differs from rulesPath's.
func quotes(rulesPath string) []string {
	b, err := os.ReadFile(rulesPath)
	if err != nil {
		return []string{err.Error()}
	}
	want := levelLines(string(b))
	var bad []string
	for _, doc := range quotedBy {
		d, err := os.ReadFile(doc)
		if err != nil {
			bad = append(bad, err.Error())
			continue
		}
		if got := levelLines(string(d)); strings.Join(got, "\n") != strings.Join(want, "\n") {
			bad = append(bad, fmt.Sprintf("%s quotes the layers as\n  %s\nbut %s says\n  %s\n(copy the \"level N:\" lines from %s)",
				doc, strings.Join(got, "\n  "), rulesPath, strings.Join(want, "\n  "), rulesPath))
		}
	}
	return bad
}

// levelLines are the "level N: ..." lines of a text, in order.
func levelLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "level ") {
			out = append(out, strings.TrimSpace(l))
		}
	}
	return out
}
