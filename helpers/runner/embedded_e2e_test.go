//go:build e2e

package runner_test

import (
	"testing"

	"github.com/classproof/classproof/fixtures/targets"
	"github.com/classproof/classproof/helpers/manifest"
)

// resolve is what the CLI hands down: spec (empty: the kit's own manifest for lane) read once
// with vars.
func resolve(t *testing.T, spec, lane string, vars ...string) *manifest.Resolved {
	t.Helper()
	r, err := targets.Resolve(spec, lane, vars, "")
	if err != nil {
		t.Fatal(err)
	}
	return r
}
