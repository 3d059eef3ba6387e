package runner

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/classproof/classproof/helpers/base/proc"
)

// A launcher that flooded the ledger channel past its bound fails the run, and run.json says the
// copy stopped: a harness's line after the flood is not in the copy, and no spec that read it
// before the flood could tell. The channel's FIFO is gone once the run let go of it. The control:
// a channel that took a few lines closes with no problem.
func TestAFloodedLedgerChannelFailsTheRun(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: the channel is root's, handed to another uid's group")
	}
	for _, flood := range []bool{false, true} {
		dir := t.TempDir()
		ch, err := proc.OpenChannel(filepath.Join(dir, "ledger"), 65534, 65534, channelCopy(dir))
		if err != nil {
			t.Fatal(err)
		}
		w, err := os.OpenFile(ch.FIFO, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		lines := 3
		if flood {
			lines = 1<<16 + 1
		}
		if _, err := w.Write(bytes.Repeat([]byte("{}\n"), lines)); err != nil {
			t.Fatal(err)
		}
		w.Close()
		waitCopied(t, ch, flood, lines)
		res, pl := &Result{}, plan{channel: ch}
		closeChannel(res, &pl)
		overflowed := strings.Contains(res.LedgerChannel, "OVERFLOWED") && len(res.Problems) == 1 && strings.Contains(res.Problems[0], "overflowed")
		if overflowed != flood || (!flood && len(res.Problems) > 0) {
			t.Errorf("%d lines into the channel: run.json says %q, problems %q; want the overflow named and failing the run: %v", lines, res.LedgerChannel, res.Problems, flood)
		}
		if _, err := os.Lstat(ch.FIFO); !os.IsNotExist(err) || pl.channel != nil {
			t.Errorf("after closeChannel the FIFO %s: %v, the plan's channel %v; want it removed, and let go of", ch.FIFO, err, pl.channel)
		}
	}
}

// waitCopied waits, bounded (proc.Until), until the copier copied lines or overflowed.
func waitCopied(t *testing.T, ch *proc.Channel, flood bool, lines int) {
	t.Helper()
	err := proc.Until(time.Now().Add(10*time.Second), time.Millisecond, func() (bool, error) {
		if flood {
			return ch.Overflowed(), nil
		}
		b, err := os.ReadFile(ch.Copy)
		return bytes.Count(b, []byte("\n")) == lines, err
	})
	if err != nil {
		t.Fatalf("the copier, %d lines in: %v", lines, err)
	}
}
