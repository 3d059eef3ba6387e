package confine

import (
	"fmt"
	"os/exec"
	"runtime"
	"sync"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// writes are the rights Landlock handles here: every way to change the file system. Reading
// and executing are not handled, so they stay as they were.
const writes = landlock.AccessFSSet(ll.AccessFSWriteFile | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile |
	ll.AccessFSMakeChar | ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSock | ll.AccessFSMakeFifo |
	ll.AccessFSMakeBlock | ll.AccessFSMakeSym | ll.AccessFSRefer | ll.AccessFSTruncate)

// fileWrites are those of writes that apply to a file (Landlock refuses a rule giving a file a
// folder's rights).
const fileWrites = landlock.AccessFSSet(ll.AccessFSWriteFile | ll.AccessFSTruncate)

// kernelDirs hold no file of anyone's: procfs (a launcher writes its children's
// /proc/PID/autogroup, oom_score_adj and the like) and POSIX shared memory. Through /proc no
// file of the kit's is reached: /proc/PID/fd, /root, /cwd and /mem of a process outside the
// launcher's domain need ptrace access, which Landlock denies across domains
// (security/landlock/task.c, hook_ptrace_access_check), and a path reached through a magic link
// is checked where it really is. /dev/pts holds the ptys a launcher opens after /dev/ptmx
// (devpts: terminals, no file of anyone's).
var kernelDirs = []string{"/proc", "/dev/shm", "/dev/pts"}

// Spawner starts processes under one policy, all in one Landlock domain: a launcher's daemon,
// host and client commands may signal one another (shmux's ping-host signals its host), and
// nothing outside. Go 1.26's os/exec runs no code of ours between fork and exec (SysProcAttr's
// Landlock fields come in Go 1.28), so the ruleset is enforced once on a thread of the
// Spawner's own, locked to a goroutine that forks every process from it: a Landlock domain lives
// in the thread's credentials, which fork copies (kernel Documentation/userspace-api/
// landlock.rst: restrictions "are inherited by the children"; security/landlock/cred.c), and it
// is never lifted. Close ends the goroutine without unlocking, so the Go runtime ends the thread
// rather than run anything else of the kit on it. With the sandbox off, a process starts as it
// is.
type Spawner struct {
	p     Policy
	abi   int // the Landlock ABI enforced; 0: Current's
	mu    sync.Mutex
	reqs  chan *exec.Cmd
	errs  chan error
	fault Fault // put on the thread before its first process (InjectFault); nil: none
}

// InjectFault gives every process s starts f, installed on the Spawner's thread before the first:
// a launcher instance's, never a build step's. Call it before the first Start.
func (s *Spawner) InjectFault(f Fault) { s.fault = f }

// NewSpawner is a Spawner for p; its thread is made on the first Start.
func NewSpawner(p Policy) *Spawner { return &Spawner{p: p} }

// Start starts cmd in the Spawner's domain.
func (s *Spawner) Start(cmd *exec.Cmd) error {
	if (!Current().On() && s.fault == nil) || cmd.Err != nil {
		return cmd.Start()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reqs == nil {
		ready := make(chan error, 1)
		reqs, errs := make(chan *exec.Cmd), make(chan error)
		go s.serve(ready, reqs, errs)
		if err := <-ready; err != nil {
			return err
		}
		s.reqs, s.errs = reqs, errs
	}
	s.reqs <- cmd
	return <-s.errs
}

// serve restricts a thread of its own and starts every process of the Spawner from it. That
// thread must not be the main one: the kit's pid is the main thread's id, and kill(2) of a pid is
// checked against that thread's domain (security/landlock/task.c, hook_task_kill), so a launcher
// sharing it could signal the kit. Go puts a goroutine on any free thread, the main one too; one
// that lands there holds it while it starts another serve, which so gets another thread.
func (s *Spawner) serve(ready chan<- error, reqs <-chan *exec.Cmd, errs chan<- error) {
	runtime.LockOSThread() // never unlocked on the thread it restricts: see Spawner
	if unix.Gettid() == unix.Getpid() {
		pinned := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			close(pinned)
			s.serve(ready, reqs, errs)
		}()
		<-pinned
		runtime.UnlockOSThread()
		return
	}
	abi := s.abi
	if abi == 0 {
		abi = Current().ABI
	}
	if Current().On() {
		if err := restrictThread(s.p, abi); err != nil {
			ready <- fmt.Errorf("classproof sandbox: %w", err)
			return
		}
	}
	if s.fault != nil {
		if err := s.fault.Install(); err != nil {
			ready <- err
			return
		}
	}
	ready <- nil
	for c := range reqs {
		errs <- c.Start()
	}
}

// Close ends the Spawner's thread; its processes run on.
func (s *Spawner) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reqs != nil {
		close(s.reqs)
		s.reqs = nil
	}
	if s.fault != nil {
		s.fault.Close()
	}
}

// restrictThread enforces p on the calling thread only (no LANDLOCK_RESTRICT_SELF_TSYNC), with
// what Landlock ABI abi handles: below the kernel's own when capped (State.Kernel), so a test here
// enforces exactly what an older kernel would.
func restrictThread(p Policy, abi int) error {
	handled, files := writes, fileWrites
	if abi < 3 {
		handled, files = handled&^ll.AccessFSTruncate, files&^ll.AccessFSTruncate
	}
	if abi < 2 {
		handled &^= ll.AccessFSRefer
	}
	cfg := landlock.Config{HandledAccessFS: handled}
	if abi >= 6 {
		cfg.Scoped = landlock.ScopedSet(ll.ScopeSignal | ll.ScopeAbstractUnixSocket)
	}
	rules := []landlock.Rule{landlock.PathAccess(files, append(append([]string(nil), p.Files...), devices...)...).IgnoreIfMissing()}
	rules = append(rules, landlock.PathAccess(handled, kernelDirs...).IgnoreIfMissing())
	if len(p.Dirs) > 0 {
		rules = append(rules, landlock.PathAccess(handled, p.Dirs...))
	}
	fd, flags, err := cfg.BestEffort().NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("making the Landlock ruleset for %+v: %w", p, err)
	}
	if fd < 0 {
		return fmt.Errorf("landlock said ABI %d, then gave no ruleset", Current().ABI)
	}
	defer unix.Close(fd)
	// Landlock asks for no_new_privs (or CAP_SYS_ADMIN): a launcher then cannot gain rights
	// through a setuid binary, which it never needs to start a harness.
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	return nil
}

// detect asks the kernel for its Landlock ABI.
func detect() State {
	v, err := ll.LandlockGetABIVersion()
	if err != nil || v < 1 {
		return State{Kind: "none", Why: fmt.Sprintf("this kernel offers no Landlock (landlock_create_ruleset: %v)", err)}
	}
	return State{Kind: "landlock", ABI: v}
}
