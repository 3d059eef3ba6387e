package launcher

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/classproof/classproof/helpers/base/files"
	"github.com/classproof/classproof/helpers/base/identity"
	"github.com/classproof/classproof/helpers/base/proctable"
)

// Without a subreaper (macOS) an orphan goes to launchd and what it started stays below it: a
// harness below an orphaned middle process (setsid, then its parent exits) is launchd's
// grandchild, and Account must look at it as it looks at launchd's children (issue 67: only pid
// 1's children were). With a subreaper (Linux) every orphan comes back below the suite process.
func TestStraysReachBelowAnOrphanedMiddleProcess(t *testing.T) {
	table := map[int]proctable.Info{
		1:   {Pid: 1},
		100: {Pid: 100, Ppid: 1},   // the middle process, orphaned
		101: {Pid: 101, Ppid: 100}, // the second harness below it
		200: {Pid: 200, Ppid: 1},   // the suite process
		201: {Pid: 201, Ppid: 200}, // its launcher's daemon
	}
	below := []int{201}
	got := strays(table, below, false)
	for _, want := range []int{100, 101, 201} {
		if !slices.Contains(got, want) {
			t.Errorf("without a subreaper: strays %v leave out pid %d", got, want)
		}
	}
	if got := strays(table, below, true); !slices.Equal(got, below) {
		t.Errorf("with a subreaper: strays %v, want what is below the suite process %v", got, below)
	}
}

// A harness the tree cannot place is another test process's when its report is in a folder that
// process made (cpPID-...) and that process is one of the run's own (kitProcesses): a harness
// under launchd for a moment while that process's cleanup kills its launcher is not this
// process's to name (issue 67). This process's own folders, a process that is not the run's, one
// that ended, a name of another shape and a path outside the base are not.
func TestAHarnessInASiblingsFolderIsTheirs(t *testing.T) {
	me := os.Getpid()
	const sibling, stranger, ended = 1 << 30, 1<<30 + 1, 1<<30 + 2
	table := map[int]proctable.Info{
		me:       {Pid: me, Ppid: 10},
		sibling:  {Pid: sibling, Ppid: 10},
		stranger: {Pid: stranger, Ppid: 1},
		ended:    {Pid: ended, Ppid: 10, Zombie: true},
	}
	kit := map[int]bool{sibling: true, ended: true}
	base := files.Resolved(instanceBase())
	in := func(name string) string { return filepath.Join(base, name, "report-1.json") }
	theirs := siblingFolders(table, kit)
	for report, want := range map[string]bool{
		in(fmt.Sprintf("cp%d-123", sibling)):             true,
		in(fmt.Sprintf("cp%d-123", me)):                  false,
		in(fmt.Sprintf("cp%d-123", stranger)):            false,
		in(fmt.Sprintf("cp%d-123", ended)):               false,
		in(fmt.Sprintf("cp0%d-123", sibling)):            false,
		in(fmt.Sprintf("cp%d", sibling)):                 false,
		in(fmt.Sprintf("xcp%d-1", sibling)):              false,
		in(fmt.Sprintf("%d-1", sibling)):                 false,
		"/elsewhere/" + fmt.Sprintf("cp%d-1/r", sibling): false,
		"": false,
		// The launcher's own folder in a sibling's name, and shapes the kit never hands out.
		filepath.Join(base, fmt.Sprintf("cp%d-123", sibling)) + "/../../" + filepath.Join(base, fmt.Sprintf("cp%d-9", me), "report-1.json"): false,
		filepath.Join(base, fmt.Sprintf("cp%d-123", sibling), "home", "report-1.json"):                                                      false,
		filepath.Join(base, fmt.Sprintf("cp%d-123", sibling), "r.json"):                                                                     false,
		filepath.Join(base, fmt.Sprintf("cp%d-123", sibling), "report-.json"):                                                               false,
	} {
		if got := theirs(report); got != want {
			t.Errorf("report %q: another test process's %v, want %v", report, got, want)
		}
	}
	// A report-N.json that is a symlink was planted by a launcher: its harness writes elsewhere.
	folder, err := os.MkdirTemp(base, fmt.Sprintf("cp%d-", sibling))
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(folder)
	real, planted := filepath.Join(folder, "report-1.json"), filepath.Join(folder, "report-2.json")
	if err := os.WriteFile(real, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "elsewhere.json"), planted); err != nil {
		t.Fatal(err)
	}
	if !theirs(real) || theirs(planted) {
		t.Errorf("a report file in a sibling's folder: theirs %v (want true); a symlink there: theirs %v (want false)", theirs(real), theirs(planted))
	}
}

// The run's own processes are what descends from the top of the kit's kin (the CLI supervising
// the run): another suite's test process and its launcher's harness, in its tree, are the run's
// and never this process's to account for (on macOS Account looks at the whole table); what is
// below this process, and an orphan under launchd, are not among them.
func TestTheRunsOtherProcessesAreNeverStrays(t *testing.T) {
	me := os.Getpid()
	table := map[int]proctable.Info{
		1:  {Pid: 1},
		10: {Pid: 10, Ppid: 1},  // the CLI supervising the run
		11: {Pid: 11, Ppid: 10}, // this suite's ginkgo
		me: {Pid: me, Ppid: 11}, // this test process
		13: {Pid: 13, Ppid: me}, // its launcher's daemon
		20: {Pid: 20, Ppid: 10}, // another suite's ginkgo
		21: {Pid: 21, Ppid: 20}, // its test process
		22: {Pid: 22, Ppid: 21}, // its launcher's daemon
		23: {Pid: 23, Ppid: 22}, // and harness
		30: {Pid: 30, Ppid: 1},  // an orphaned middle process
		31: {Pid: 31, Ppid: 30}, // a harness below it
	}
	kit := kitProcesses(table, 10, []int{13})
	for pid, want := range map[int]bool{11: true, 20: true, 21: true, 22: true, 23: true, me: false, 13: false, 30: false, 31: false, 1: false, 10: false} {
		if kit[pid] != want {
			t.Errorf("pid %d: the run's own %v, want %v", pid, kit[pid], want)
		}
	}
	if len(kitProcesses(table, 0, nil)) != 0 {
		t.Error("with no kin above, processes taken for the run's own")
	}
}

// The kit's private folder names the process that made it, as siblingFolders reads it.
func TestThePrivateFolderNamesItsProcess(t *testing.T) {
	dir, err := privateDir(identity.Launcher(), false)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if got := madeBy(filepath.Base(dir)); got != os.Getpid() {
		t.Errorf("privateDir %s names pid %d, want this process %d", dir, got, os.Getpid())
	}
}
