package proctable

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// On a Mac, the decoder's offsets are x/sys's, whose struct cgo made from the SDK's headers.
// Compiled here (GOOS=darwin go vet); it runs only on macOS.
func TestKinfoOffsetsAreXSys(t *testing.T) {
	var k unix.KinfoProc
	for _, c := range []struct {
		field     string
		got, want uintptr
	}{
		{"size", kinfoSize, unix.SizeofKinfoProc},
		{"p_starttime.tv_sec", kinfoStartSec, unsafe.Offsetof(k.Proc) + unsafe.Offsetof(k.Proc.P_starttime) + unsafe.Offsetof(k.Proc.P_starttime.Sec)},
		{"p_starttime.tv_usec", kinfoStartUsec, unsafe.Offsetof(k.Proc.P_starttime) + unsafe.Offsetof(k.Proc.P_starttime.Usec)},
		{"p_stat", kinfoStat, unsafe.Offsetof(k.Proc.P_stat)},
		{"p_flag", kinfoFlag, unsafe.Offsetof(k.Proc.P_flag)},
		{"p_pid", kinfoPid, unsafe.Offsetof(k.Proc.P_pid)},
		{"e_ppid", kinfoPpid, unsafe.Offsetof(k.Eproc) + unsafe.Offsetof(k.Eproc.Ppid)},
		{"e_pgid", kinfoPgid, unsafe.Offsetof(k.Eproc) + unsafe.Offsetof(k.Eproc.Pgid)},
	} {
		if c.got != c.want {
			t.Errorf("%s at %d, x/sys has it at %d", c.field, c.got, c.want)
		}
	}
}
