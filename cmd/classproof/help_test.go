package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

var updateHelp = flag.Bool("update-help", false, "rewrite testdata/help from the CLI's help as it is now")

// numCPU stands in a golden help for the one machine-dependent default (mutants --jobs).
const numCPU = "{NumCPU}"

// Every command's help, printed by `classproof help CMD` and by `classproof CMD --help`, and the
// CLI's own usage (`classproof help`, `classproof --help`) are the texts in testdata/help: a
// change to a command's flags that changes its help shows here as a diff, to be made on purpose
// (go test ./cmd/classproof -run TestHelpIsGolden -update-help, and the why in the commit).
func TestHelpIsGolden(t *testing.T) {
	ctx := context.Background()
	golden := map[string][][]string{"help": {{"help"}, {"--help"}, {"help", "help"}}}
	for _, c := range append(commands, subcommands...) {
		if c.name == "help" {
			continue
		}
		words := strings.Fields(c.name)
		ways := [][]string{append(words, "--help"), append([]string{"help"}, words...)}
		if len(words) > 1 {
			ways = append(ways, []string{"help", c.name}) // a subcommand's name, quoted
		}
		golden[strings.Join(words, "-")] = ways
	}
	for name, ways := range golden {
		path := filepath.Join("testdata", "help", name+".txt")
		for i, args := range ways {
			var code int
			got := captureStdout(t, func() { code = dispatch(ctx, args) })
			if code != exitPassed {
				t.Errorf("classproof %s: exit %d, want 0", strings.Join(args, " "), code)
			}
			got = strings.Replace(got, fmt.Sprintf("runs side by side (each a whole run of its lane) (default %d)", runtime.NumCPU()),
				"runs side by side (each a whole run of its lane) (default "+numCPU+")", 1)
			if *updateHelp && i == 0 {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test ./cmd/classproof -run TestHelpIsGolden -update-help writes it)", err)
			}
			if got != string(want) {
				t.Errorf("classproof %s printed a help that differs from %s:\n%s", strings.Join(args, " "), path, lineDiff(string(want), got))
			}
		}
	}
}

// lineDiff is every line where want and got differ, numbered, as "-want" then "+got".
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n-%s\n+%s\n", i+1, wl, gl)
		}
	}
	return b.String()
}

// A command's flags are rows of its table (runner.Table: its own rows and its share of the run
// flags), never defined on a flag set one by one: the table is what its help, its parsing and its
// receipts' Reproduce lines are written from, and a flag beside it would be left out of one.
func TestEveryFlagIsATableRow(t *testing.T) {
	adHoc := regexp.MustCompile(`\bfs\.(String|Bool|Int|Int64|Uint|Duration|Float64|Func|BoolFunc|TextVar|Var|StringVar|BoolVar|IntVar|DurationVar|Float64Var)\(`)
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range strings.Split(string(b), "\n") {
			if adHoc.MatchString(l) {
				t.Errorf("%s:%d defines a flag outside its command's table: %s", f, i+1, strings.TrimSpace(l))
			}
		}
	}
}
