package runner_test

import (
	"github.com/classproof/classproof/fixtures/targets"
	"github.com/classproof/classproof/helpers/target"
)

// The kit's own manifests, as the CLI sets them at its edge.
func init() { target.Embedded = targets.Catalog() }
