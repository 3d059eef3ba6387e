package proc

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/classproof/classproof/helpers/base/cgroup"
	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/proctable"
)

// NewRunToken is a fresh token: 128 random bits.
func NewRunToken() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("reading random bytes for the run token: %v", err)) // crypto/rand does not fail on Linux or macOS
	}
	return "cp-" + hex.EncodeToString(b)
}

// RunToken is this process's run token, "" when none was made.
func RunToken() string { return contract.Current().Token }

// carries says whether the words of a process (its arguments and environment, NUL-separated)
// hold the token: as an argument of its own, or as contract.TokenEnv=token.
func carries(words []byte, token string) bool {
	if token == "" {
		return false
	}
	env := []byte(contract.TokenEnv + "=" + token)
	for _, w := range bytes.Split(words, []byte{0}) {
		if bytes.Equal(w, []byte(token)) || bytes.Equal(w, env) {
			return true
		}
	}
	return false
}

// Tied says whether the kit may signal pid, and if not, why. Where this process has a cgroup
// (Contained) the kernel answers: pid is in it. Else pid carries the run's token, or descends from
// a process that does, or from this process. Never pid 1 or below, this process, any of its
// ancestors, or a process of another run's.
func Tied(pid int, token string) (bool, string) { return tie(token, cgroup.Contained().Cgroup)(pid) }

// tie is Tied for many pids, within scope (nil: no cgroup): the kit's own chain of parents is read once.
func tie(token string, scope *cgroup.Cgroup) func(pid int) (bool, string) {
	k := thisKit()
	return func(pid int) (bool, string) {
		if scope == nil {
			chain, _ := proctable.Chain(pid)
			return tiedBy(pid, k, chain, proctable.Identity, token)
		}
		if ok, why := tiedBy(pid, k, nil, nil, ""); !ok && why != "" {
			return false, why // never the kit or its ancestors, whatever cgroup they are in
		}
		// A cgroup is exact: only a process in it is the run's, whatever it carries or descends
		// from (a test process of the run carries the token and is never in it).
		if scope.Holds(pid) {
			return true, ""
		}
		return false, fmt.Sprintf("it is not in this run's cgroup %s (as the kernel's /proc/%d/cgroup says)", scope.Path, pid)
	}
}

// kit is this process as tiedBy sees it: its pid, its chain of parents (itself first), and its
// kin, the ancestors whose other descendants are the kit's own and never a launcher's: its
// parent, and every ancestor up to the CLI supervising the run (contract.SupervisorEnv). With
// --procs or several suites, the other test processes are children of the parent or cousins
// under the supervisor, and they carry the run's token too.
type kit struct {
	me   int
	mine []int
	kin  []int
}

// thisKit reads kit for this process.
func thisKit() kit {
	me := os.Getpid()
	mine, _ := proctable.Chain(me)
	sup, _ := proctable.OwnerPid(contract.Current().Supervisor)
	return kitOf(me, mine, sup)
}

// KinTop is the highest of this process's kin (see kit): the CLI supervising the run where it is
// an ancestor, else the parent; 0 where there is none. Every test process of the run, and every
// suite's, descends from it.
func KinTop() int {
	if k := thisKit(); len(k.kin) > 0 {
		return k.kin[len(k.kin)-1]
	}
	return 0
}

// kitOf is kit's rule on what was read: sup is the supervisor's pid, 0 when none is alive.
func kitOf(me int, mine []int, sup int) kit {
	k := kit{me: me, mine: mine}
	if len(mine) < 2 {
		return k
	}
	upto := 1 // the parent alone, when the supervisor is not above (a suite run by go test)
	if i := slices.Index(mine, sup); i > 1 {
		upto = i
	}
	for _, p := range mine[1 : upto+1] {
		if p > 1 {
			k.kin = append(k.kin, p)
		}
	}
	return k
}

// tiedBy is Tied's rule on what was read: chain is pid's chain of parents (pid first), identity
// reads a process's arguments and environment.
func tiedBy(pid int, k kit, chain []int, identity func(int) ([]byte, error), token string) (bool, string) {
	me, mine := k.me, k.mine
	switch {
	case pid <= 1:
		return false, fmt.Sprintf("pid %d is never signalled", pid)
	case pid == me:
		return false, "it is the kit itself"
	case len(mine) > 1 && contains(mine[1:], pid):
		return false, "it is an ancestor of the kit"
	}
	if identity == nil {
		return false, "" // only the rules above were asked for
	}
	// Another run of the same classproof process (a cell of the kill matrix, a side of a
	// red/green proof) descends from the kit too, yet is never this run's.
	if w, err := identity(pid); err == nil {
		if other := tokenOf(w); other != "" && other != token {
			return false, "it carries another run's token"
		}
	}
	if contains(chain, me) {
		return true, ""
	}
	// A sibling or cousin of the kit's (another Ginkgo test process of this run, another suite's
	// under the same CLI) carries the run's token too, yet no launcher started it: a process that
	// descends from the kit's kin but not from the kit is never tied through a report. (Above the
	// supervisor, an ancestor may be a subreaper that an escaped launcher process was handed to.)
	for _, p := range k.kin {
		if contains(chain, p) {
			return false, fmt.Sprintf("it descends from the kit's own ancestor %d (up to the CLI supervising the run), not from this process: a process of the kit's (another test process or suite, say), not a launcher's", p)
		}
	}
	for _, p := range chain {
		if p <= 1 {
			break
		}
		if w, err := identity(p); err == nil && carries(w, token) {
			return true, ""
		}
	}
	return false, fmt.Sprintf("it carries no token of this run ($%s) and descends from no process of this run (its parents: %v)", contract.TokenEnv, chain[min(1, len(chain)):])
}

// tokenOf is the run token a process carries in its environment, "" when none.
func tokenOf(words []byte) string {
	prefix := []byte(contract.TokenEnv + "=")
	for _, w := range bytes.Split(words, []byte{0}) {
		if v, ok := bytes.CutPrefix(w, prefix); ok {
			return string(v)
		}
	}
	return ""
}

// group says whether e may be killed as a group: it leads its group now, the group is not the
// kit's own, and it is no group of pid 1 or below (kill(-1) signals every process).
func group(e Entry) bool { return groupBy(e, unix.Getpgid, unix.Getpgrp()) }

// groupBy is group's rule on what getpgid reads; mine is the kit's own group.
func groupBy(e Entry, getpgid func(int) (int, error), mine int) bool {
	if !e.Leader || e.Pid <= 1 {
		return false
	}
	pgid, err := getpgid(e.Pid)
	return err == nil && pgid == e.Pid && pgid != mine
}

func contains(list []int, x int) bool {
	for _, v := range list {
		if v == x {
			return true
		}
	}
	return false
}
