package runner

import (
	"fmt"
	"os"
	"path/filepath"

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

// openChannel makes the ledger channel of the run's own uid (proc.OpenChannel), before any
// launcher process starts, and says which record of its harnesses the run has, for run.json:
// only a uid of the run's own has one (a root kit on Linux); elsewhere each harness is recorded
// where its --ledger argument says, and a launcher that starts it without one, then kills it,
// leaves no record.
func openChannel(pl *plan, id identity.Identity) string {
	if !id.PerRun {
		return "argv only: no run uid of its own (a kit that is not root, macOS, or a launcher uid the user chose): a harness started without its --ledger and killed leaves no record"
	}
	ch, err := proc.OpenChannel(proc.ChannelDir, id.Uid, id.Gid, channelCopy(pl.out))
	if err != nil {
		return "argv only: " + err.Error()
	}
	pl.channel = ch
	return "fifo by uid (" + ch.FIFO + ")"
}

// channelCopy is where the run's copy of its ledger channel is: out, root's alone.
func channelCopy(out string) string { return filepath.Join(out, "pids.channel") }

// closeChannel stops the channel's copier and removes its FIFO, once the suites no longer read
// it (res: what it copied goes to run.json; a flood that stopped the copy fails the run), or on
// any way out of Run (res nil); once.
func closeChannel(res *Result, pl *plan) {
	if pl.channel == nil {
		return
	}
	ch := pl.channel
	pl.channel = nil
	overflowed := ch.Overflowed()
	says, err := ch.Close()
	if res == nil {
		return
	}
	res.LedgerChannel = says
	if overflowed {
		res.Problems = append(res.Problems, fmt.Sprintf("the ledger channel %s overflowed: a launcher's processes flooded it, and a harness's line may be lost", ch.FIFO))
	}
	if err != nil {
		res.Problems = append(res.Problems, fmt.Sprintf("closing the ledger channel: %v", err))
	}
}

// letGo ends what begin set up, on every way out of Run: the ledger channel is closed and its
// FIFO removed; the ledger is unsealed (an append-only file can be neither chowned back nor
// removed); then the run's uid is let go of (a
// run that ends before its sweep started none of its launcher's processes as that uid: the build
// runs as identity.ForBuild, so the release finds nothing to name; sweep has released it
// already otherwise); then the ledger's own folder, if it has one, is removed ("": the ledger is
// in out, and stays).
func letGo(pl *plan) {
	closeChannel(nil, pl)
	_ = proc.UnsealLedger(pl.ledger)
	if pl.release != nil {
		pl.release()
	}
	os.RemoveAll(pl.ledgerDir)
}

// channelCopyOf is the channel's copy the suites read, "" for a run without a channel.
func channelCopyOf(pl plan) string {
	if pl.channel == nil {
		return ""
	}
	return pl.channel.Copy
}
