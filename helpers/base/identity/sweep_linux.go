package identity

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/classproof/classproof/helpers/base/actas"
)

// sharedRoots are the folders every user may write on a Linux machine (1777), whose trees the
// sweep of a run's uid walks: what a launcher with no write sandbox (CLASSPROOF_SANDBOX=off, a
// kernel without Landlock) may leave where the next holder of its uid, or anyone, finds it.
var sharedRoots = func() []string {
	return []string{os.TempDir(), "/tmp", "/var/tmp", "/dev/shm", "/dev/mqueue", "/run/lock"}
}

// swept is what sweepLeft found of a run's uid.
type swept struct {
	left   []string // what it found and removed, named (LEFT BEHIND)
	failed []string // each a reason the run fails: a setuid or setgid file of the uid, what stays
	keep   bool     // something of the uid may still be there: it stays out of the pool
}

// sweepLeft removes, as id's user in a process of its own, what it owns in the shared folders'
// trees and its System V IPC objects (memory, for as long as the machine runs), and names them:
// each of the first few, then how many more. A run uid is free again only when nothing it owns
// is left: what could not be removed fails the run and keeps the uid out of the pool (keep), and
// a setuid or setgid file of the uid fails it whether or not it was removed (issue 68: a
// setuid+setgid copy of a binary in a 0555 folder of /dev/shm was named and passed, and whoever
// ran it later became that uid). A correct launcher makes no such file.
func sweepLeft(id Identity) (swept, error) {
	found, unwalked, err := ownedIn(id.Uid, sharedRoots())
	if err != nil {
		return swept{}, err
	}
	var s swept
	// A folder the walk could not look in may hold anything of the uid's: the run fails saying
	// which, and the uid stays out.
	for _, u := range unwalked {
		s.failed = append(s.failed, fmt.Sprintf("the sweep of the run's uid %d could not look in %v: it cannot say the uid left nothing there", id.Uid, u))
	}
	s.keep = len(unwalked) > 0
	var tops []string
	for _, o := range found {
		if o.top {
			tops = append(tops, o.path)
		}
	}
	if len(tops) > 0 {
		if _, err := actas.Child(id.Uid, id.Gid, sweepBound(), actas.RemoveAll, tops...); err != nil {
			return s, err
		}
		// What is there now is what the uid could not remove as itself: the truth, whatever the
		// child said.
		still, unwalked, err := ownedIn(id.Uid, sharedRoots())
		if err != nil {
			still = append(still, owned{path: err.Error()})
		}
		for _, u := range unwalked {
			still = append(still, owned{path: fmt.Sprintf("%v (could not look in it)", u)})
		}
		there := map[string]bool{}
		for _, o := range still {
			there[o.path] = true
		}
		// Each door first (said once, removed or not), then the rest still there.
		var elsewhere bool
		s.failed, elsewhere = doors(found, id.Uid, there)
		for _, o := range still {
			if !o.door() {
				s.failed = append(s.failed, fmt.Sprintf("not removed, of the run's uid %d: %s", id.Uid, o))
			}
		}
		s.left = named(slices.DeleteFunc(tops, func(p string) bool { return there[p] }), nil, id.Uid)
		s.keep = s.keep || elsewhere || len(still) > 0
	}
	if err := sweepIPC(id, &s); err != nil {
		return s, err
	}
	return s, nil
}

// doors names each setuid or setgid file in found, with its mode, whether it is still there, and,
// where it has links the walk did not find (a hard link in a folder outside the shared ones), how
// many: then elsewhere says a door may be left where no sweep looks.
func doors(found []owned, uid int, there map[string]bool) (out []string, elsewhere bool) {
	links := map[[2]uint64]uint64{}
	for _, o := range found {
		links[[2]uint64{o.dev, o.ino}]++
	}
	for _, o := range found {
		if !o.door() {
			continue
		}
		line := fmt.Sprintf("a %s of the run's uid %d, which makes whoever runs it that uid: %s, removed", kindOf(o.mode), uid, o)
		if there[o.path] {
			line = strings.TrimSuffix(line, "removed") + "not removed"
		}
		if n := links[[2]uint64{o.dev, o.ino}]; o.nlink > n {
			line += fmt.Sprintf("; it has %d links, %d of them outside the folders swept (%s)", o.nlink, o.nlink-n, strings.Join(sharedRoots(), ", "))
			elsewhere = true
		}
		out = append(out, line)
	}
	return out, elsewhere
}

// named says what a sweep found of uid's, the first ten by name (quoted: a file name is the
// launcher's to choose) and how many more, and what it could not remove.
func named(found, failed []string, uid int) []string {
	const most = 10
	var out []string
	for i, f := range found {
		if i == most {
			out = append(out, fmt.Sprintf("and %d more of uid %d's (removed)", len(found)-most, uid))
			break
		}
		out = append(out, fmt.Sprintf("%q (uid %d's; removed)", f, uid))
	}
	for _, f := range failed {
		out = append(out, fmt.Sprintf("not removed, of uid %d's: %s", uid, f))
	}
	return out
}
