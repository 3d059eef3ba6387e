package proctable

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// The decoder's kinfo_proc offsets (darwin_layout.go) are proven at compile time against x/sys's
// struct, which cgo made from the SDK's headers, for each darwin architecture this is built for
// (make darwin: arm64 and amd64): unsafe.Offsetof is a constant, and each pair below is a constant
// that overflows uintptr, failing the build, unless the two offsets are equal.
var kinfoLayout unix.KinfoProc

const (
	kinfoProcAt  = unsafe.Offsetof(kinfoLayout.Proc)
	kinfoEprocAt = unsafe.Offsetof(kinfoLayout.Eproc)
	startSecAt   = kinfoProcAt + unsafe.Offsetof(kinfoLayout.Proc.P_starttime) + unsafe.Offsetof(kinfoLayout.Proc.P_starttime.Sec)
	startUsecAt  = kinfoProcAt + unsafe.Offsetof(kinfoLayout.Proc.P_starttime) + unsafe.Offsetof(kinfoLayout.Proc.P_starttime.Usec)
	statAt       = kinfoProcAt + unsafe.Offsetof(kinfoLayout.Proc.P_stat)
	flagAt       = kinfoProcAt + unsafe.Offsetof(kinfoLayout.Proc.P_flag)
	pidAt        = kinfoProcAt + unsafe.Offsetof(kinfoLayout.Proc.P_pid)
	ppidAt       = kinfoEprocAt + unsafe.Offsetof(kinfoLayout.Eproc.Ppid)
	pgidAt       = kinfoEprocAt + unsafe.Offsetof(kinfoLayout.Eproc.Pgid)
)

const (
	_, _ = uintptr(kinfoSize) - unix.SizeofKinfoProc, unix.SizeofKinfoProc - uintptr(kinfoSize)
	_, _ = uintptr(kinfoEprocOffset) - kinfoEprocAt, kinfoEprocAt - uintptr(kinfoEprocOffset)
	_, _ = uintptr(kinfoStartSec) - startSecAt, startSecAt - uintptr(kinfoStartSec)
	_, _ = uintptr(kinfoStartUsec) - startUsecAt, startUsecAt - uintptr(kinfoStartUsec)
	_, _ = uintptr(kinfoStat) - statAt, statAt - uintptr(kinfoStat)
	_, _ = uintptr(kinfoFlag) - flagAt, flagAt - uintptr(kinfoFlag)
	_, _ = uintptr(kinfoPid) - pidAt, pidAt - uintptr(kinfoPid)
	_, _ = uintptr(kinfoPpid) - ppidAt, ppidAt - uintptr(kinfoPpid)
	_, _ = uintptr(kinfoPgid) - pgidAt, pgidAt - uintptr(kinfoPgid)
)
