// Command specsdoc writes docs/specs.md, the spec catalogue, from what cannot drift: a dry run of
// the suites (each spec's title and labels: the seed sentence it checks or the convention it is,
// what it needs), ci/required-specs.yaml (the lanes that run it), ci/mutants-first.tsv (the refmux
// variants it caught first in the kill matrix), and the prose of ci/specsdoc/specs.md.tmpl with
// the hand-kept notes of ci/specsdoc/notes.tsv. With --check it writes nothing and fails when the
// file differs (make static), as Kubernetes checks its generated conformance list.
//
//	go run ./ci/specsdoc           # make specs-doc
//	go run ./ci/specsdoc --check   # make static
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/classproof/classproof/fixtures/targets"
	"github.com/classproof/classproof/helpers/gate"
	"github.com/classproof/classproof/helpers/runner"
)

func main() {
	out := flag.String("out", "docs/specs.md", "the catalogue to write (or check)")
	check := flag.Bool("check", false, "write nothing: fail when the file differs from what the suites say")
	report := flag.String("report", "", "a Ginkgo JSON report of a dry run to read, instead of dry-running the suites")
	flag.Parse()
	if err := run(*out, *check, *report); err != nil {
		fmt.Fprintln(os.Stderr, "ci/specsdoc:", err)
		os.Exit(1)
	}
}

func run(out string, check bool, report string) error {
	if report == "" {
		dir, err := os.MkdirTemp("", "classproof-specsdoc")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		if report, err = dryRun(dir); err != nil {
			return err
		}
	}
	in, tmpl, err := load(report)
	if err != nil {
		return err
	}
	doc, err := render(tmpl, in)
	if err != nil {
		return err
	}
	if !check {
		return os.WriteFile(out, []byte(doc), 0o644)
	}
	old, err := os.ReadFile(out)
	if err != nil {
		return err
	}
	if d := firstDifference(string(old), doc); d != "" {
		return fmt.Errorf("%s is stale: it differs from what the suites say (%s); remake it with 'make specs-doc' and review the diff", out, d)
	}
	fmt.Printf("ci/specsdoc: %s agrees with the suites\n", out)
	return nil
}

// dryRun lists every spec, with its labels, from a Ginkgo dry run of the suites (nothing runs;
// one lane's report holds every platform's specs, those of other lanes marked filtered).
func dryRun(dir string) (string, error) {
	const ln = "linux-idle"
	t, err := targets.Resolve("", ln, nil, "")
	if err != nil {
		return "", err
	}
	res, err := runner.Run(context.Background(), runner.Options{Target: t, Lane: ln, DryRun: true, OutDir: filepath.Join(dir, ln), Log: io.Discard, Deadline: time.Now().Add(10 * time.Minute)})
	if err != nil {
		return "", fmt.Errorf("dry run of lane %s: %w", ln, err)
	}
	if res.Run == nil || res.GinkgoErr != nil {
		return "", fmt.Errorf("dry run of lane %s failed (%v); see %s", ln, res.GinkgoErr, res.ReportPath)
	}
	return res.ReportPath, nil
}

// load reads every input but the dry run's report into the catalogue's rows, checked.
func load(report string) (inputs, string, error) {
	specs, err := specsOf(report, tableAt("."))
	if err != nil {
		return inputs{}, "", err
	}
	in := inputs{Rows: rowsOf(specs), Lanes: map[string][]string{}}
	req, err := gate.LoadRequired("ci/required-specs.yaml")
	if err != nil {
		return inputs{}, "", err
	}
	for ln, p := range req.Lanes {
		for _, s := range p.Specs {
			in.Lanes[s] = append(in.Lanes[s], ln)
		}
	}
	if in.Catches, err = readCatches("ci/mutants-first.tsv"); err != nil {
		return inputs{}, "", err
	}
	warnUnmatched(specs, in.Catches)
	if in.Notes, err = readNotes("ci/specsdoc/notes.tsv"); err != nil {
		return inputs{}, "", err
	}
	if err := check(in.Rows, in.Notes); err != nil {
		return inputs{}, "", err
	}
	tmpl, err := os.ReadFile("ci/specsdoc/specs.md.tmpl")
	return in, string(tmpl), err
}

// firstDifference names the first line where two texts differ, "" when they are equal.
func firstDifference(a, b string) string {
	if a == b {
		return ""
	}
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d: the file has %q, the suites say %q", i+1, clip(x), clip(y))
		}
	}
	return "line endings differ"
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return s
}

// warnUnmatched says which first catches name no spec: ci/mutants-first.tsv is remade only by a
// full make mutants, so a renamed spec leaves it behind; the catalogue is still made (the kill
// matrix falls back to every spec for such a variant), but the column misses that catch.
func warnUnmatched(specs []spec, catches map[string][]string) {
	names := map[string]bool{}
	for _, s := range specs {
		names[s.Name] = true
	}
	for name, vs := range catches {
		if !names[name] {
			fmt.Fprintf(os.Stderr, "ci/specsdoc: ci/mutants-first.tsv: %s caught first by %q, which is no spec now (make mutants-first after a full make mutants)\n", strings.Join(vs, ", "), name)
		}
	}
}
