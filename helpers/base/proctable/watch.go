package proctable

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Supervisor is this process as an owner: "PID START NS", its pid, its start time and its pid
// namespace (the inode of /proc/self/ns/pid, 0 where there is none), for contract.SupervisorEnv
// and for what the kit leaves behind while it runs (a build folder in the cache, a run's cgroup).
func Supervisor() string {
	in, _ := Lookup(os.Getpid()) // this process runs: unread, its start is 0 and no owner matches it
	return fmt.Sprintf("%d %d %d", os.Getpid(), in.Start, PidNS())
}

// PidNS is this process's pid namespace. Two kits can share a cgroup tree or a cache folder but
// not a pid namespace (CI jobs in containers on one host): a pid means another process, or none,
// in another namespace.
func PidNS() uint64 {
	var st unix.Stat_t
	if err := unix.Stat("/proc/self/ns/pid", &st); err != nil {
		return 0
	}
	return st.Ino
}

// Watch calls gone once, when the supervisor named by value (Supervisor) no longer exists: a
// run whose CLI was killed (kill -9 leaves no chance to forward anything) must not go on alone.
// It polls every interval; a value it cannot read means no supervisor, and it returns at once.
func Watch(value string, interval time.Duration, gone func()) {
	e, ok := parseSupervisor(value)
	if !ok {
		return
	}
	go func() {
		for e.live() {
			time.Sleep(interval)
		}
		gone()
	}()
}

// Exists says whether the owner a Supervisor value names may still be alive: it is gone only
// when this process can prove it, from the owner's own pid namespace. A value without a namespace
// (an older kit's "PID START") is judged from this one.
func Exists(value string) bool {
	e, ok := parseSupervisor(value)
	if !ok {
		return false
	}
	if ns, named := OwnerNS(value); named && ns != PidNS() {
		return true
	}
	return e.live()
}

// OwnerPid is the pid of the owner a Supervisor value names while that process, and not a later
// one with its pid, runs in this pid namespace.
func OwnerPid(value string) (int, bool) {
	e, ok := parseSupervisor(value)
	if !ok || !e.live() {
		return 0, false
	}
	if ns, named := OwnerNS(value); named && ns != PidNS() {
		return 0, false
	}
	return e.Pid, true
}

// owner is the process a Supervisor value names: a pid and its start time.
type owner struct {
	Pid   int
	Start uint64
}

// live says whether that process, and not a later one with its pid, runs (a zombie is gone). A
// process the kit cannot read may run: only the kernel's "no such process" (or another start,
// or a zombie) ends an owner, never a read that failed (EMFILE would end a supervised run).
func (o owner) live() bool {
	in, err := Lookup(o.Pid)
	if err != nil {
		return !Gone(err)
	}
	return in.Start == o.Start && !in.Zombie
}

func parseSupervisor(value string) (owner, bool) {
	var e owner
	f := strings.Fields(value)
	if len(f) < 2 || len(f) > 3 {
		return owner{}, false
	}
	if _, err := fmt.Sscanf(f[0]+" "+f[1], "%d %d", &e.Pid, &e.Start); err != nil || e.Pid <= 0 || e.Start == 0 {
		return owner{}, false
	}
	return e, true
}

// OwnerNS is the pid namespace a Supervisor value names, if it names one.
func OwnerNS(value string) (uint64, bool) {
	f := strings.Fields(value)
	if len(f) != 3 {
		return 0, false
	}
	ns, err := strconv.ParseUint(f[2], 10, 64)
	return ns, err == nil
}
