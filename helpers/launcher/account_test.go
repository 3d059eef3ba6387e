package launcher

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/classproof/classproof/helpers/base/files"
	"github.com/classproof/classproof/helpers/base/proctable"
	"github.com/classproof/classproof/helpers/base/sandbox"
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

// A harness the tree cannot place is another Ginkgo process's when its report is in a folder
// that process made (cpPID-...) and that process is a live child of this process's parent: a
// harness under launchd for a moment while that process's cleanup kills its launcher is not this
// process's to name (issue 67). This process's own folders, a process that is no sibling, a name
// of another shape and a path outside the base are not.
func TestAHarnessInASiblingsFolderIsTheirs(t *testing.T) {
	me, parent := os.Getpid(), os.Getppid()
	if parent <= 1 {
		t.Skip("this test process has no parent to share")
	}
	const sibling, stranger = 1 << 30, 1<<30 + 1
	table := map[int]proctable.Info{
		me:       {Pid: me, Ppid: parent},
		sibling:  {Pid: sibling, Ppid: parent},
		stranger: {Pid: stranger, Ppid: 1},
	}
	base := files.Resolved(instanceBase())
	in := func(name string) string { return filepath.Join(base, name, "report-1.json") }
	theirs := siblingFolders(table)
	for report, want := range map[string]bool{
		in(fmt.Sprintf("cp%d-123", sibling)):             true,
		in(fmt.Sprintf("cp%d-123", me)):                  false,
		in(fmt.Sprintf("cp%d-123", stranger)):            false,
		in(fmt.Sprintf("cp0%d-123", sibling)):            false,
		in(fmt.Sprintf("cp%d", sibling)):                 false,
		in(fmt.Sprintf("xcp%d-1", sibling)):              false,
		in(fmt.Sprintf("%d-1", sibling)):                 false,
		"/elsewhere/" + fmt.Sprintf("cp%d-1/r", sibling): false,
		"": false,
	} {
		if got := theirs(report); got != want {
			t.Errorf("report %q: another Ginkgo process's %v, want %v", report, got, want)
		}
	}
	dead := map[int]proctable.Info{sibling: {Pid: sibling, Ppid: parent, Zombie: true}}
	if siblingFolders(dead)(in(fmt.Sprintf("cp%d-123", sibling))) {
		t.Error("a folder of a sibling that ended is taken for a live one's")
	}
}

// The kit's private folder names the process that made it, as siblingFolders reads it.
func TestThePrivateFolderNamesItsProcess(t *testing.T) {
	dir, err := privateDir(sandbox.LauncherIdentity())
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if got := madeBy(filepath.Base(dir)); got != os.Getpid() {
		t.Errorf("privateDir %s names pid %d, want this process %d", dir, got, os.Getpid())
	}
}
