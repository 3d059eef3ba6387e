// Package launcher is the driver between the suites and a launcher: a manifest
// (helpers/manifest) says how to build, start and drive one launcher, and the driver does it. The
// suites talk to launchers only through this package, so a launcher in any language plugs in with
// a manifest.
//
// It must not import the Ginkgo DSL, Gomega or fixtures/: the CLI side uses it too.
package launcher

import (
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/identity"
	"github.com/classproof/classproof/helpers/manifest"
	"github.com/classproof/classproof/helpers/oracle"
)

// Driver drives one launcher as its manifest says. It is safe to share between specs.
type Driver struct {
	Manifest *manifest.Manifest
	Meaning  oracle.Meaning // background on this OS
	Harness  string         // the fixture harness binary
	// Writes are folders, beyond each launcher's own, that its processes may write (a bench's
	// work folder, where the harness's tools write).
	Writes []string
	// RunsAs is who its launcher processes (all but the build step's) run as:
	// identity.Launcher(), or, for the CLI's preflight of a run with a uid of its own
	// (identity.ForRun), that run's.
	RunsAs identity.Identity
	// Made says where {bin}'s binaries came from when no build step of this run made them (a
	// release archive's prebuilt launcher): a missing one's way out. "" for the build step's.
	Made string
	vals map[string]string
}

// New makes a driver without checking that the launcher is built (Build does that).
func New(m *manifest.Manifest, p manifest.Paths, harness string) (*Driver, error) {
	meaning, err := m.Meaning(runtime.GOOS)
	if err != nil {
		return nil, fmt.Errorf("target manifest %s: %w", m.Source, err)
	}
	vals := map[string]string{"kit": p.Kit, "bin": p.Bin, "cache": BuildCache(m, p)}
	if p.Repo != "" {
		vals["repo"] = p.Repo
	}
	vars, err := m.ResolveVars(vals)
	if err != nil {
		return nil, fmt.Errorf("target manifest %s: %w", m.Source, err)
	}
	for k, v := range vars {
		vals[k] = v
	}
	return &Driver{Manifest: m, Meaning: meaning, Harness: harness, RunsAs: identity.Launcher(), vals: vals}, nil
}

// Open makes a driver for an already built launcher and checks its binaries and the harness.
func Open(m *manifest.Manifest, p manifest.Paths, harness string) (*Driver, error) {
	d, err := New(m, p, harness)
	if err != nil {
		return nil, err
	}
	if err := d.CheckBinaries(); err != nil {
		return nil, err
	}
	if _, err := os.Stat(harness); err != nil {
		return nil, fmt.Errorf("fixture harness %q: %v", harness, err)
	}
	return d, nil
}

// env is the kit's environment without the class variable (a CI runner that happens to set it
// must not decide what a spec proves), then extra layers, later winning.
func (d *Driver) env(token string, layers ...map[string]string) []string {
	var out []string
	for _, kv := range os.Environ() {
		// The kit's own variables are not the launcher's business (the ledger's path among them:
		// the harness gets it as an argument), except the run's token, which ties what the
		// launcher starts to this run (proc.Tied); nor are the CI runner's files and tokens.
		if k, _, _ := strings.Cut(kv, "="); k == d.Manifest.ClassEnv || contract.Own(k) || contract.RunnerOnly(k) {
			continue
		}
		out = append(out, kv)
	}
	if token != "" {
		out = append(out, contract.TokenEnv+"="+token)
	}
	for _, l := range layers {
		for k, v := range l {
			out = append(out, k+"="+v)
		}
	}
	return out
}
