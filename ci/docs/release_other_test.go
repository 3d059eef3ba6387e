//go:build !linux

package docs

import "testing"

// uidRelease: a run uid is kept out on Linux only (the kit takes run uids there alone).
func uidRelease(t *testing.T, b block, unconfined bool) {
	t.Skipf("%s: the release of a kept run uid is Linux's (the kit takes run uids on Linux only)", b)
}
