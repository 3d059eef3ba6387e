package launcher

import (
	"fmt"
	"slices"
	"time"

	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/proc"
	"github.com/classproof/classproof/helpers/base/proctable"
	"github.com/classproof/classproof/helpers/oracle"
)

// unjudged is a line for each harness the run's ledger says was started for a report path this
// instance handed out that the kit never judged (no report of it was read, verified and observed:
// Started) and that is gone, or that the kit cannot identify now (its main thread ended while its
// others run: no executable to read), with the tools it recorded that still run, each with its
// class as ps reads it. named are the pids Account named already.
//
// A live harness is Account's to count (a second one for a report fails there); one that ended, or
// whose leader did, is in no process listing, yet it ran the handed command: a launcher that starts
// the harness itself at normal, waits for its report, kills it (its tool lives on at normal) and
// then asks its daemon properly would pass on the second harness alone. The harness records
// itself and its tools in the ledger as it starts (fixtures/harness), each with its report path;
// a line is a claim, and a claim of a harness the kit never judged only ever fails the launcher
// that made it.
func (l *Instance) unjudged(handed []string, im proctable.Image, named map[int]bool) []string {
	claims, inLedger, err := l.claims()
	if err != nil {
		return []string{err.Error()}
	}
	judged := map[[2]uint64]bool{}
	judgedBy := map[string][]int{} // report path: the judged harness's pid
	for _, s := range l.Started() {
		judged[[2]uint64{uint64(s.Pid), s.Start}] = true
	}
	for _, e := range claims {
		if e.Role == proc.HarnessRole && judged[[2]uint64{uint64(e.Pid), e.Start}] {
			judgedBy[e.Report] = append(judgedBy[e.Report], e.Pid)
		}
	}
	handedKeys := map[string]bool{} // as the harness records them: one file, however named
	for _, h := range handed {
		handedKeys[proc.ReportKey(h)] = true
	}
	var out []string
	for _, e := range claims {
		if e.Role != proc.HarnessRole || !handedKeys[e.Report] || named[e.Pid] ||
			judged[[2]uint64{uint64(e.Pid), e.Start}] {
			continue
		}
		why := harnessNow(e, im)
		if why == "" {
			continue // a live harness: Account counts it
		}
		where := "as it recorded itself in the run's pid ledger"
		if !inLedger[e] {
			where = "as it recorded itself in the ledger channel of the run's uid, and not in the pid ledger: started without the --ledger the kit handed out"
		}
		out = append(out, fmt.Sprintf("harness pid %d (started at %d, --report %s, %s) %s; the kit never judged it: no report of it was read, its class never seen. Expected: each harness the kit hands out judged alive, the one its report names (%s)%s",
			e.Pid, e.Start, e.Report, where, why, judgedNames(judgedBy[e.Report]), toolsLeft(claims, e)))
	}
	return out
}

// harnessNow says what became of the harness a ledger line names: "" while it runs, identifiably,
// the harness's code.
func harnessNow(e proc.Entry, im proctable.Image) string {
	if e.Start == 0 {
		return "recorded no start time (it could not read itself), so the kit cannot tell which process it was"
	}
	in, err := proctable.Lookup(e.Pid)
	switch {
	case proctable.Gone(err), err == nil && (in.Start != e.Start || in.Zombie):
		return "has ended"
	case err != nil:
		return fmt.Sprintf("cannot be read (%v)", err)
	}
	runs, err := im.RunBy(e.Pid)
	switch {
	case err != nil && !proctable.Exiting(e.Pid):
		return fmt.Sprintf("still runs (%s) but its executable cannot be read (%v): a process whose main thread ended while its other threads run shows none", classRead("harness", e.Pid), err)
	case err != nil:
		return "is ending"
	case !runs:
		return "runs other code now (it exec'd)"
	}
	return ""
}

// judgedNames says which harnesses the kit judged for a report.
func judgedNames(pids []int) string {
	if len(pids) == 0 {
		return "none was judged for this report"
	}
	return fmt.Sprintf("the kit judged pid %v", pids)
}

// claims are the lines every harness wrote of itself and its tools: in the run's pid ledger, at
// the path its --ledger gives, and in the ledger channel of the run's uid, which it finds without
// its arguments (proc.RecordInChannel): a harness a launcher started without --ledger is in the
// second. A line in both is one claim; inLedger says which are in the pid ledger.
func (l *Instance) claims() (all []proc.Entry, inLedger map[proc.Entry]bool, err error) {
	c := contract.Current()
	inLedger = map[proc.Entry]bool{}
	if c.Ledger != "" {
		got, err := proc.Claims(c.Ledger)
		if err != nil {
			return nil, nil, fmt.Errorf("the run's pid ledger %s, where each harness records itself, cannot be read (%v): the kit cannot tell whether every harness it handed out was judged", c.Ledger, err)
		}
		all = got
		for _, e := range got {
			inLedger[e] = true
		}
	}
	fifo, err := l.channel()
	if err != nil {
		return nil, nil, err
	}
	if fifo != "" {
		wait, _ := contract.Scaled(channelWait)
		got, err := proc.ChannelClaims(fifo, c.LedgerCopy, time.Now().Add(wait))
		if err != nil {
			return nil, nil, fmt.Errorf("the ledger channel of the run's uid, where each harness records itself whatever its arguments: %v: the kit cannot tell whether every harness it handed out was judged", err)
		}
		all = append(all, got...)
	}
	seen := map[proc.Entry]bool{}
	return slices.DeleteFunc(all, func(e proc.Entry) bool {
		dup := seen[e]
		seen[e] = true
		return dup
	}), inLedger, nil
}

// channelWait bounds the wait for the channel's copier to copy the kit's marker: the copier
// takes microseconds, so only a stalled one waits this out; generous, since running out of it
// fails the spec of a launcher that did nothing wrong (a machine under load).
const channelWait = 20 * time.Second

// channel is the ledger channel's FIFO of this instance's launcher uid, "" where the run has none
// (no copy in the contract: a kit that is not root, macOS, a suite run without the CLI).
func (l *Instance) channel() (string, error) {
	if contract.Current().LedgerCopy == "" || !l.d.RunsAs.PerRun {
		return "", nil
	}
	path, err := proc.ChannelPath(l.d.RunsAs.Uid)
	if err != nil {
		return "", fmt.Errorf("naming the ledger channel of the run's uid %d: %w", l.d.RunsAs.Uid, err)
	}
	return path, nil
}

// toolsLeft names each tool the ledger says harness e started that still runs, with its class as
// ps reads it: what the launcher left running at a class nobody looked at.
func toolsLeft(claims []proc.Entry, e proc.Entry) string {
	var out string
	for _, t := range claims {
		if t.Role != proc.ToolRole || t.Parent != e.Pid || t.Report != e.Report || t.Start == 0 {
			continue
		}
		if in, err := proctable.Lookup(t.Pid); err != nil || in.Start != t.Start || in.Zombie {
			continue
		}
		out += "; still running: " + classRead("its tool sleep", t.Pid)
	}
	return out
}

// classRead is pid under role with its class as ps reads it, for a receipt.
func classRead(role string, pid int) string {
	o, err := oracle.ObserveOne(role, pid)
	if err != nil {
		return fmt.Sprintf("%s pid %d, class unread: %v; as the kernel says: %s", role, pid, err, proctable.ThreadsClass(pid))
	}
	return o.String()
}

// below names what still runs below pid, each with its class: what a process the kit cannot
// identify started (a harness's tools) is judged for class all the same.
func below(pid int) string {
	pids, err := proctable.Descendants(pid)
	if err != nil {
		return fmt.Sprintf("; what runs below it cannot be read: %v", err)
	}
	var out string
	for _, p := range pids {
		out += "; below it: " + classRead("process", p)
	}
	return out
}
