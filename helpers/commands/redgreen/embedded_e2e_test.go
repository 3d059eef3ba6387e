//go:build e2e

package redgreen

import (
	"testing"
	"time"

	"github.com/classproof/classproof/fixtures/targets"
	"github.com/classproof/classproof/helpers/binaries"
)

// options resolves f as the CLI does, with the kit's own manifests and this kit's folder.
func options(t *testing.T, f Flags) Options {
	t.Helper()
	kit, err := binaries.KitDir()
	if err != nil {
		t.Fatal(err)
	}
	o, err := f.Options(targets.Catalog(), kit, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return o
}
