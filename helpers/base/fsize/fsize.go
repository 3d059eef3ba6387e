// Package fsize runs a command under a file size limit (RLIMIT_FSIZE) given in bytes, the same
// number on every OS, with no shell in between.
//
// Why not `sh -c 'ulimit -f N; exec ...'`: ulimit -f counts blocks, and the block differs by shell.
// dash counts 512 bytes (dash src/miscbltin.c, limits[]: "file(blocks)", RLIMIT_FSIZE, 512); bash
// 3.2, /bin/sh on macOS, counts 1024 (Apple's bash-3.2/builtins/ulimit.def line 210: 'f',
// RLIMIT_FILESIZE, 1024). The same "ulimit -f 4" was 2048 bytes here and 4096 on a Mac runner.
//
// How: the calling binary starts itself again with Prefix's arguments; this package's init sees
// them before anything else runs (a Ginkgo suite binary included), sets the limit with
// setrlimit(2), which takes bytes on both OSes (Linux getrlimit(2); XNU bsd/man/man2/getrlimit.2
// "RLIMIT_FSIZE: the largest size (in bytes) file that may be created", enforced in
// bsd/vfs/vfs_vnops.c vn_write), then execs the command. The Go runtime only notes SIGXFSZ
// (runtime/sigtab_linux_generic.go and signal_darwin.go: _SigNotify, a handler, not SIG_IGN), so
// the exec'd command starts with the default action, as it would from a shell.
//
// It must not import the Ginkgo DSL or Gomega, nor fixtures/.
package fsize

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"

	"golang.org/x/sys/unix"
)

// marker is argv[1] of a binary started by Prefix: no test binary, CLI or launcher takes it.
const marker = "classproof-fsize-exec"

func init() {
	if len(os.Args) < 4 || os.Args[1] != marker {
		return
	}
	if err := limitAndExec(os.Args[2], os.Args[3:]); err != nil {
		fmt.Fprintf(os.Stderr, "classproof fsize: %v\n", err)
		os.Exit(126) // as a shell says a command could not be run
	}
}

// Prefix is what to put before argv so that it runs with files limited to limit bytes: the
// running binary itself (which links this package) with the limit as a decimal byte count.
func Prefix(limit int64) ([]string, error) {
	if limit < 0 {
		return nil, fmt.Errorf("file size limit %d bytes: must not be negative", limit)
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("file size limit: finding this binary to start it again: %w", err)
	}
	return []string{self, marker, strconv.FormatInt(limit, 10)}, nil
}

// Limit reads the byte count Prefix wrote; the same decimal bytes on every OS.
func Limit(s string) (uint64, error) {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("file size limit %q: not a byte count: %w", s, err)
	}
	return n, nil
}

func limitAndExec(limit string, argv []string) error {
	n, err := Limit(limit)
	if err != nil {
		return err
	}
	if err := unix.Setrlimit(unix.RLIMIT_FSIZE, &unix.Rlimit{Cur: n, Max: n}); err != nil {
		return fmt.Errorf("setrlimit(RLIMIT_FSIZE, %d bytes): %w", n, err)
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	return fmt.Errorf("exec %s: %w", path, unix.Exec(path, argv, os.Environ()))
}
