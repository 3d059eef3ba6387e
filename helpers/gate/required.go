package gate

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Required is ci/required-specs.yaml: per lane, the specs that must run and pass there, and
// whether the lane tolerates a runtime skip.
type Required struct {
	Lanes map[string]*Policy `yaml:"lanes"`
}

// Policy is one lane's part of Required.
type Policy struct {
	AllowRuntimeSkips bool     `yaml:"allow_runtime_skips"`
	Specs             []string `yaml:"specs"`
	// Conventions a launcher commits to (label.Conv* labels without their "conv-" prefix, e.g.
	// fold-case, names-profile): every spec carrying one must run and pass in the lane, so a
	// manifest that stops declaring it blocks the release instead of quietly leaving them out.
	Conventions []string `yaml:"conventions,omitempty"`
}

// LoadRequired reads a required-spec file.
func LoadRequired(path string) (*Required, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w; the required-spec list is read relative to where the gate runs, and ci/required-specs.yaml is the "+
			"kit's own (in its repository and release archive). From a launcher's repository pass --required PATH to a list of "+
			"your own (docs/lanes.md), or --required '' to judge the lanes' reports alone", err)
	}
	if err != nil {
		return nil, err
	}
	var r Required
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
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
	for _, ln := range laneNames(have, want) {
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

// laneNames are the lanes either list names, sorted.
func laneNames(lists ...*Required) []string {
	seen := map[string]bool{}
	var names []string
	for _, r := range lists {
		if r == nil {
			continue
		}
		for ln := range r.Lanes {
			if !seen[ln] {
				seen[ln] = true
				names = append(names, ln)
			}
		}
	}
	sort.Strings(names)
	return names
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
