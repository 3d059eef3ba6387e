//go:build e2e

package redgreen

import (
	"github.com/classproof/classproof/fixtures/targets"
	"github.com/classproof/classproof/helpers/target"
)

// catalog is the kit's own manifests, as the CLI passes them down from its edge.
func catalog() target.Catalog { return targets.Catalog() }
