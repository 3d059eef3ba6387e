package gate

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/classproof/classproof/helpers/lane"
	"github.com/classproof/classproof/helpers/runner"
	"github.com/classproof/classproof/helpers/target"
)

// Lanes are the lanes a release needs, each with the kit's own target for it.
var Lanes = lane.Names()

// Generate lists, for every lane, the specs it runs, from a Ginkgo dry run of the suites with the
// lane's filter (nothing is executed, so every lane is listed from any OS). Each lane's
// allow_runtime_skips is kept from previous.
func Generate(ctx context.Context, catalog target.Catalog, kitDir, workDir string, previous *Required) (*Required, error) {
	r := &Required{Lanes: map[string]*Policy{}}
	for _, ln := range Lanes {
		res, err := runner.Run(ctx, runner.Options{Catalog: catalog, KitDir: kitDir, Lane: ln, DryRun: true, OutDir: filepath.Join(workDir, ln), Log: io.Discard})
		if err != nil {
			return nil, fmt.Errorf("dry run of lane %s: %w", ln, err)
		}
		if res.Run == nil || res.GinkgoErr != nil {
			return nil, fmt.Errorf("dry run of lane %s failed (%v); see %s", ln, res.GinkgoErr, res.ReportPath)
		}
		p := &Policy{}
		if previous != nil && previous.Lanes[ln] != nil {
			p.AllowRuntimeSkips = previous.Lanes[ln].AllowRuntimeSkips
		}
		for _, s := range res.Run.Specs {
			if !s.Filtered {
				p.Specs = append(p.Specs, s.Name)
			}
		}
		sort.Strings(p.Specs)
		r.Lanes[ln] = p
	}
	return r, nil
}

const requiredHeader = `# The specs a release needs, per lane: the gate fails when one of them did not run and pass in
# its lane. Made by 'make required-specs' from a Ginkgo dry run of the suites with each lane's
# label filter; 'make test' fails when this file and the suites disagree, so a renamed or deleted
# spec cannot slip out unseen. allow_runtime_skips is policy, kept when the file is remade.
`

// Marshal renders the file.
func (r *Required) Marshal() ([]byte, error) {
	b, err := yaml.Marshal(r)
	if err != nil {
		return nil, err
	}
	return append([]byte(requiredHeader), b...), nil
}

// Diff says how two lists differ, spec by spec; empty when they agree.
func Diff(have, want *Required) string {
	var b strings.Builder
	for _, ln := range Lanes {
		h, w := set(have, ln), set(want, ln)
		for name := range w {
			if !h[name] {
				fmt.Fprintf(&b, "  %s: + %s\n", ln, name)
			}
		}
		for name := range h {
			if !w[name] {
				fmt.Fprintf(&b, "  %s: - %s\n", ln, name)
			}
		}
	}
	return b.String()
}

func set(r *Required, ln string) map[string]bool {
	m := map[string]bool{}
	if r != nil && r.Lanes[ln] != nil {
		for _, s := range r.Lanes[ln].Specs {
			m[s] = true
		}
	}
	return m
}

// WriteOrCheck makes the file at path, or with check only compares and returns an error naming
// every difference.
func WriteOrCheck(ctx context.Context, catalog target.Catalog, kitDir, path string, check bool) error {
	previous, err := LoadRequired(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	work, err := os.MkdirTemp("", "classproof-required")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	want, err := Generate(ctx, catalog, kitDir, work, previous)
	if err != nil {
		return err
	}
	if check {
		if d := Diff(previous, want); d != "" || previous == nil {
			return fmt.Errorf("%s disagrees with the suites (run 'make required-specs' and review):\n%s", path, d)
		}
		return nil
	}
	b, err := want.Marshal()
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
