// Command layers is `make layers`: it checks the import layers ci/layers.rules sets out, one line
// per level, with `go list -deps`, and the shape of every import block (goimports -local: the
// standard library, then third parties, then classproof, one group each). It prints each
// crossing (which package reaches which forbidden one, and through what rule) and exits 1 if
// there is any; 2 if the rules cannot be read.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

const module = "github.com/classproof/classproof"

// rules are what ci/layers.rules says.
type rules struct {
	level   map[string]int // package -> its level
	forbids []forbid
}

type forbid struct {
	line     int
	from     []string // patterns
	but      []string // patterns exempt from the rule
	disallow []string // patterns none of from may link
}

func main() {
	path := "ci/layers.rules"
	if len(os.Args) > 1 {
		path = os.Args[1]
	}
	r, err := readRules(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ci/layers:", err)
		os.Exit(2)
	}
	pkgs, err := list()
	if err != nil {
		fmt.Fprintln(os.Stderr, "ci/layers:", err)
		os.Exit(2)
	}
	bad := r.check(path, pkgs)
	bad = append(bad, importGroups()...)
	bad = append(bad, quotes(path)...)
	for _, b := range bad {
		fmt.Println(b)
	}
	if len(bad) > 0 {
		os.Exit(1)
	}
	fmt.Printf("ci/layers: every layer in %s holds; every import block is std, third party, classproof; the docs quote its levels\n", path)
}

// full is a pattern or path as the go tool names it: the module's own paths are written short.
func full(p string) string {
	if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ".") {
		return p
	}
	return module + "/" + p
}

func short(p string) string { return strings.TrimPrefix(p, module+"/") }

// matches says whether pkg is pattern, or under it for a pattern ending in "/...".
func matches(pattern, pkg string) bool {
	pattern = full(pattern)
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return pkg == pattern
}

func any(patterns []string, pkg string) bool {
	for _, p := range patterns {
		if matches(p, pkg) {
			return true
		}
	}
	return false
}

func readRules(path string) (*rules, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := &rules{level: map[string]int{}}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "level "):
			head, pkgs, ok := strings.Cut(strings.TrimPrefix(line, "level "), ":")
			lv, err := strconv.Atoi(head)
			if !ok || err != nil || lv < 1 {
				return nil, fmt.Errorf("%s:%d: %q: want \"level N: PACKAGE ...\" with N a level from 1", path, n, line)
			}
			for _, p := range strings.Fields(pkgs) {
				if old, dup := r.level[full(p)]; dup {
					return nil, fmt.Errorf("%s:%d: %s is on level %d already", path, n, p, old)
				}
				r.level[full(p)] = lv
			}
		case strings.HasPrefix(line, "forbid "):
			lhs, rhs, ok := strings.Cut(strings.TrimPrefix(line, "forbid "), "->")
			if !ok {
				return nil, fmt.Errorf("%s:%d: %q: want \"forbid PACKAGES [but PACKAGES] -> PACKAGES\"", path, n, line)
			}
			from, but, _ := strings.Cut(lhs, " but ")
			r.forbids = append(r.forbids, forbid{n, strings.Fields(from), strings.Fields(but), strings.Fields(rhs)})
		default:
			return nil, fmt.Errorf("%s:%d: %q: a line is a comment, \"level N: ...\" or \"forbid ... -> ...\"", path, n, line)
		}
	}
	return r, sc.Err()
}

// pkg is one package of the module with what it links (its imports, all the way down).
type pkg struct {
	ImportPath string
	Deps       []string
}

func list() ([]pkg, error) {
	cmd := exec.Command("go", "list", "-json=ImportPath,Deps", "./...")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			return pkgs, nil
		} else if err != nil {
			return nil, fmt.Errorf("go list: %w", err)
		}
		pkgs = append(pkgs, p)
	}
}

// check names every package off the levels, every import of a level not below its own and every
// link a forbid line forbids.
func (r *rules) check(path string, pkgs []pkg) []string {
	var bad []string
	for _, p := range pkgs {
		lv, levelled := r.level[p.ImportPath]
		if !levelled && matches("helpers/...", p.ImportPath) {
			bad = append(bad, fmt.Sprintf("layer missing: %s is on no level of %s; place it there", short(p.ImportPath), path))
		}
		for _, d := range p.Deps {
			if dl, ok := r.level[d]; levelled && ok && dl >= lv {
				bad = append(bad, fmt.Sprintf("layer crossed: %s (level %d) depends on %s (level %d): a package imports only lower levels", short(p.ImportPath), lv, short(d), dl))
			}
		}
		for _, f := range r.forbids {
			if !any(f.from, p.ImportPath) || any(f.but, p.ImportPath) {
				continue
			}
			for _, d := range p.Deps {
				if any(f.disallow, d) {
					bad = append(bad, fmt.Sprintf("layer crossed: %s depends on %s (forbidden by %s:%d)", short(p.ImportPath), short(d), path, f.line))
				}
			}
		}
	}
	return bad
}
