package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"text/template"

	"github.com/classproof/classproof/helpers/base/label"
	"github.com/classproof/classproof/helpers/manifest"
)

// inputs is everything the catalogue is made of besides the template's prose.
type inputs struct {
	Rows    []*row
	Lanes   map[string][]string // spec name: the lanes that run it (ci/required-specs.yaml)
	Catches map[string][]string // spec name: the refmux variants it caught first (ci/mutants-first.tsv)
	Notes   map[string]string   // row key: the hand-kept note
}

// manifestKey is the manifest key that declares each convention label: the feature table's
// (helpers/manifest/features.go), where the rest of what a convention means is too.
var manifestKey = func() map[string]string {
	out := map[string]string{}
	for _, f := range manifest.Features() {
		if strings.HasPrefix(f.Key, "conventions.") || strings.HasPrefix(f.Key, "config.") {
			out[f.Label] = f.Key
		}
	}
	return out
}()

// render fills the template with the seed table and each suite's table.
func render(tmpl string, in inputs) (string, error) {
	t, err := template.New("specs.md").Funcs(template.FuncMap{
		"seeds": func() string { return seedTable(in) },
		"suite": func(name string) (string, error) { return suiteTable(in, name) },
	}).Parse(tmpl)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, nil); err != nil {
		return "", err
	}
	return b.String(), nil
}

func seedTable(in inputs) string {
	var b strings.Builder
	b.WriteString("| key | the seed says | the kit reads it as | promise rows that check it |\n|---|---|---|---|\n")
	for _, s := range label.Seed {
		count := map[string]int{}
		var suites []string
		for _, r := range in.Rows {
			if convs, _ := r.labelsIn(label.ConventionPrefix); len(convs) > 0 {
				continue // a convention row is about the sentence, it does not prove it
			}
			if all, some := r.labelsIn(s.Key); len(all)+len(some) > 0 {
				if count[r.Suite] == 0 {
					suites = append(suites, r.Suite)
				}
				count[r.Suite]++
			}
		}
		slices.Sort(suites)
		var where []string
		for _, su := range suites {
			where = append(where, fmt.Sprintf("%s %d", su, count[su]))
		}
		fmt.Fprintf(&b, "| `%s` | %q | %s | %s |\n", s.Key, s.Quote, cell(s.Reading), strings.Join(where, ", "))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func suiteTable(in inputs, suite string) (string, error) {
	var b strings.Builder
	section := ""
	for _, r := range in.Rows {
		if r.Suite != suite {
			continue
		}
		if r.Section != section {
			section = r.Section
			fmt.Fprintf(&b, "\n**%s**\n\n| spec | kind | needs | lanes | first caught (refmux) | note |\n|---|---|---|---|---|---|\n", cell(section))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", titleCell(r), kindCell(r), needsCell(r), lanesCell(r, in), catchesCell(r, in), cell(in.Notes[r.Key()]))
	}
	if section == "" {
		return "", fmt.Errorf("no specs of suite %q in the dry run", suite)
	}
	return strings.TrimSpace(b.String()), nil
}

// cell makes text safe in a table cell.
func cell(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ") }

func code(ls []string) string {
	var out []string
	for _, l := range ls {
		out = append(out, "`"+l+"`")
	}
	return strings.Join(out, ", ")
}

func titleCell(r *row) string {
	t := cell(fold(r.Titles))
	switch n := len(r.Entries); {
	case n == 0:
	case n <= 6:
		t += ": " + cell(strings.Join(r.Entries, "; "))
	default:
		t += fmt.Sprintf(" (%d rows)", n)
	}
	return t
}

func kindCell(r *row) string {
	seeds, someSeeds := r.labelsIn(label.SeedPrefix)
	convs, someConvs := r.labelsIn(label.ConventionPrefix)
	var parts []string
	if len(convs) > 0 {
		parts = append(parts, "convention "+convCell(convs))
	} else {
		var quotes []string
		for _, k := range append(seeds, someSeeds...) {
			quotes = append(quotes, fmt.Sprintf("`%s` %q", k, opening(k)))
		}
		parts = append(parts, "promise "+cell(strings.Join(quotes, "; ")))
		if len(someConvs) > 0 {
			parts = append(parts, "rows with "+convCell(someConvs)+": convention")
		}
	}
	return strings.Join(parts, "; ")
}

// opening is a seed sentence's first fragment, for a table cell (the seed table quotes it whole).
func opening(key string) string {
	s, _ := label.SeedSentence(key)
	if first, _, more := strings.Cut(s.Quote, " ... "); more {
		return first + " ..."
	}
	return s.Quote
}

func convCell(convs []string) string {
	var out []string
	for _, c := range convs {
		if k := manifestKey[c]; k != "" {
			out = append(out, fmt.Sprintf("`%s` (`%s`)", c, k))
		} else {
			out = append(out, "`"+c+"`")
		}
	}
	return strings.Join(out, ", ")
}

func needsCell(r *row) string {
	needs := []string{"needs-", label.ReadsResolved, label.RefusesClass}
	all, some := r.labelsIn(needs...)
	out := code(all)
	if len(some) > 0 {
		if out != "" {
			out += "; "
		}
		out += "some rows: " + code(some)
	}
	return out
}

func lanesCell(r *row, in inputs) string {
	var lanes []string
	for _, s := range r.Specs {
		for _, l := range in.Lanes[s.Name] {
			if !slices.Contains(lanes, l) {
				lanes = append(lanes, l)
			}
		}
	}
	slices.Sort(lanes)
	if len(lanes) == 0 {
		return "none of refmux's"
	}
	return strings.Join(lanes, ", ")
}

func catchesCell(r *row, in inputs) string {
	var vs []string
	for _, s := range r.Specs {
		for _, v := range in.Catches[s.Name] {
			if !slices.Contains(vs, v) {
				vs = append(vs, v)
			}
		}
	}
	slices.Sort(vs)
	return code(vs)
}

// readCatches reads ci/mutants-first.tsv (target, lane, variant, spec; # comments), keeping the
// reference launcher's targets: the variant names of the first spec that caught each.
func readCatches(path string) (map[string][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string][]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, "\t", 4)
		if len(f) != 4 {
			return nil, fmt.Errorf("%s: %q: want target, lane, variant and spec, tab-separated", path, line)
		}
		// a fault injected into a class call (inject:...) is no variant of the launcher
		if !strings.HasPrefix(f[0], "embedded:refmux") || strings.HasPrefix(f[2], "inject:") {
			continue
		}
		if !slices.Contains(out[f[3]], f[2]) {
			out[f[3]] = append(out[f[3]], f[2])
		}
	}
	return out, sc.Err()
}

// readNotes reads ci/specsdoc/notes.tsv: a row's key (section | title, as folded), a tab, its note.
func readNotes(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for i, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "\t")
		if !ok || out[k] != "" {
			return nil, fmt.Errorf("%s:%d: want one \"section | title\", a tab and the note, once per row", path, i+1)
		}
		out[k] = v
	}
	return out, nil
}

// fold writes titles that differ in one span as one: the words they share before and after it,
// and the spans between, "direct / hosted".
func fold(titles []string) string {
	if len(titles) == 1 {
		return titles[0]
	}
	words := make([][]string, len(titles))
	short := -1
	for i, t := range titles {
		words[i] = strings.Fields(t)
		if short < 0 || len(words[i]) < short {
			short = len(words[i])
		}
	}
	same := func(at func([]string) string) bool {
		for _, w := range words[1:] {
			if at(w) != at(words[0]) {
				return false
			}
		}
		return true
	}
	pre := 0
	for pre < short && same(func(w []string) string { return w[pre] }) {
		pre++
	}
	suf := 0
	for suf < short-pre && same(func(w []string) string { return w[len(w)-1-suf] }) {
		suf++
	}
	var spans []string
	for _, w := range words {
		span := strings.Join(w[pre:len(w)-suf], " ")
		if span == "" { // one title holds another: no span to set beside the others
			return strings.Join(titles, " / ")
		}
		spans = append(spans, span)
	}
	w0 := words[0]
	return strings.TrimSpace(strings.Join(w0[:pre], " ") + " " + strings.Join(spans, " / ") + " " + strings.Join(w0[len(w0)-suf:], " "))
}
