package runner

import (
	"os"

	"github.com/classproof/classproof/helpers/base/identity"
	"github.com/classproof/classproof/helpers/base/proc"
)

// sealLedger makes the run's pid ledger append-only once it is handed to the launcher's user
// (proc.SealLedger), and says what the run had: "yes", or "no (why)". Where the flag cannot be
// set the run goes on, and run.json says that a launcher could have rewritten the ledger, erasing
// the record of a harness it started and killed. A launcher that runs as the kit's own user holds
// the power to clear the flag: the ledger is then not called append-only either.
func sealLedger(path string, id identity.Identity) string {
	if err := proc.SealLedger(path); err != nil {
		return "no (" + err.Error() + ")"
	}
	if !id.Other() {
		return "no (set, but the launcher's processes run as the kit's own user, which may clear it)"
	}
	return "yes"
}

// letGo ends what begin set up, on every way out of Run: the ledger is unsealed first (an
// append-only file can be neither chowned back nor removed); then the run's uid is let go of (a
// run that ends before its sweep started none of its launcher's processes as that uid: the build
// runs as identity.ForBuild, so the release finds nothing to name; sweep has released it
// already otherwise); then the ledger's own folder, if it has one, is removed ("": the ledger is
// in out, and stays).
func letGo(pl *plan) {
	_ = proc.UnsealLedger(pl.ledger)
	if pl.release != nil {
		pl.release()
	}
	os.RemoveAll(pl.ledgerDir)
}
