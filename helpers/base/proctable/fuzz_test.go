package proctable

import (
	"bytes"
	"strconv"
	"testing"
	"unsafe"

	"github.com/classproof/classproof/fixtures/ps"
)

// FuzzParseStat: /proc/PID/stat of a launcher's process is read, not trusted: its comm is the
// process's own choice (spaces, ')', newlines). A parse either fails or gives exactly the
// numbers the fields hold, counted from the last ')'.
func FuzzParseStat(f *testing.F) {
	f.Add(ps.MustRead(f, "linux-stat-idle.txt"))
	f.Add(ps.MustRead(f, "linux-stat-normal.txt"))
	f.Add([]byte("1 (a) b) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"))
	f.Fuzz(func(t *testing.T, stat []byte) {
		st, err := ParseStat(stat)
		if err != nil {
			return
		}
		i := bytes.LastIndexByte(stat, ')')
		fields := bytes.Fields(stat[i+1:])
		num := func(n int) int {
			v, err := strconv.Atoi(string(fields[n-3]))
			if err != nil {
				t.Fatalf("parsed %q with no error, but field %d is %q: %v", stat, n, fields[n-3], err)
			}
			return v
		}
		unum := func(n int) uint64 {
			v, err := strconv.ParseUint(string(fields[n-3]), 10, 64)
			if err != nil {
				t.Fatalf("parsed %q with no error, but field %d is %q", stat, n, fields[n-3])
			}
			return v
		}
		want := Stat{State: fields[0][0], Ppid: num(4), Pgrp: num(5), Session: num(6), Flags: unum(9), Threads: num(20), Start: unum(22), Policy: num(41),
			Priority: num(18), Nice: num(19), RTPriority: num(40)}
		if st != want {
			t.Fatalf("parsed %q as %+v, the fields hold %+v", stat, st, want)
		}
	})
}

// FuzzDecodeKinfos: sysctl kern.proc.all's bytes are decoded by offset; any length is either
// whole structs, each read as the compiler lays out the mirror of struct kinfo_proc, or an error.
func FuzzDecodeKinfos(f *testing.F) {
	_, one := kinfoImage(f, 1000, nil)
	_, two := kinfoImage(f, 7000, func(k *mKinfoProc) { k.Proc.P_pid, k.Eproc.Ppid = -1, 1<<31-1 })
	f.Add(one)
	f.Add(append(append([]byte(nil), one...), two...))
	f.Add(one[:kinfoSize-1])
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := decodeKinfos(b)
		if (err != nil) != (len(b)%kinfoSize != 0) {
			t.Fatalf("%d bytes (%d structs and %d over): error %v", len(b), len(b)/kinfoSize, len(b)%kinfoSize, err)
		}
		if err != nil {
			return
		}
		if len(got) != len(b)/kinfoSize {
			t.Fatalf("%d bytes decoded as %d structs", len(b), len(got))
		}
		for i, k := range got {
			var m mKinfoProc
			copy(unsafe.Slice((*byte)(unsafe.Pointer(&m)), kinfoSize), b[i*kinfoSize:])
			want := kinfo{Pid: m.Proc.P_pid, Ppid: m.Eproc.Ppid, Pgid: m.Eproc.Pgid, Stat: m.Proc.P_stat, Flag: m.Proc.P_flag,
				StartSec: m.Proc.P_starttime.Sec, StartUsec: m.Proc.P_starttime.Usec}
			if k != want {
				t.Fatalf("struct %d decoded as %+v; laid out by the compiler it holds %+v", i, k, want)
			}
		}
	})
}

// FuzzParseTaskInfo: proc_pidinfo's bytes, decoded the same way.
func FuzzParseTaskInfo(f *testing.F) {
	_, b := taskImage(f, nil)
	f.Add(b)
	f.Add(b[:TaskInfoSize-4])
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := ParseTaskInfo(b)
		if (err != nil) != (len(b) != TaskInfoSize) {
			t.Fatalf("%d bytes: error %v", len(b), err)
		}
		if err != nil {
			return
		}
		var m mProcTaskinfo
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&m)), TaskInfoSize), b)
		if want := (TaskInfo{Threads: m.Threadnum, Running: m.Numrunning, Priority: m.Priority}); got != want {
			t.Fatalf("decoded %+v; laid out by the compiler it holds %+v", got, want)
		}
	})
}

// FuzzParseProcArgs: KERN_PROCARGS2 holds what the process put in its own argv.
func FuzzParseProcArgs(f *testing.F) {
	f.Add([]byte("\x02\x00\x00\x00/bin/sleep\x00\x00\x00sleep\x0030\x00"))
	f.Add([]byte("\xff\xff\xff\x7f/x\x00a"))
	f.Add([]byte("\x01\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		args, err := parseProcArgs(b)
		if err != nil {
			if len(b) >= 4 {
				t.Fatalf("%d bytes refused: %v", len(b), err)
			}
			return
		}
		argc := int(int32(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24))
		if len(args) > max(argc, 0) {
			t.Fatalf("argc %d, %d args read", argc, len(args))
		}
		for _, a := range args {
			if bytes.IndexByte([]byte(a), 0) >= 0 || !bytes.Contains(b[4:], []byte(a)) {
				t.Fatalf("arg %q is not a NUL-free piece of the buffer", a)
			}
		}
	})
}
