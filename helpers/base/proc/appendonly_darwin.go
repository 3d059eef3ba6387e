package proc

import "errors"

// SealLedger sets no flag on macOS: UF_APPEND can be cleared by the file's owner, and the
// ledger is owned by the launcher's user (it appends to it); SF_APPEND, which only root sets,
// cannot be cleared again while the system runs at securelevel 1, so the kit could not remove
// the ledger. The run goes on with a ledger the launcher can rewrite, and run.json says so.
func SealLedger(path string) error {
	return errors.New("not on macOS: UF_APPEND can be cleared by the ledger's owner, the launcher's user, and SF_APPEND cannot be cleared again at securelevel 1")
}

// UnsealLedger has nothing to clear on macOS (SealLedger sets no flag).
func UnsealLedger(path string) error { return nil }
