package proc

import (
	"strings"
	"testing"

	"github.com/classproof/classproof/fixtures/ps"
)

func TestParseStat(t *testing.T) {
	st, err := ParseStat(ps.MustRead(t, "linux-stat-idle.txt"))
	if err != nil || st.Policy != 5 || st.Session != 1050 || st.State != 'S' || st.Start == 0 || st.Ppid == 0 {
		t.Fatalf("idle stat: %+v err %v", st, err)
	}
	st, err = ParseStat(ps.MustRead(t, "linux-stat-normal.txt"))
	if err != nil || st.Policy != 0 {
		t.Fatalf("normal stat: %+v err %v", st, err)
	}
	// A comm with spaces and ')' (go-ps misparses this): fields count from the last ')'.
	tricky := strings.Replace(string(ps.MustRead(t, "linux-stat-idle.txt")), "(sleep)", "(a) b) c)", 1)
	if st, err := ParseStat([]byte(tricky)); err != nil || st.Policy != 5 {
		t.Fatalf("tricky comm: %+v err %v", st, err)
	}
	if _, err := ParseStat([]byte("12 (x) S 1 2")); err == nil {
		t.Error("short stat accepted")
	}
}

// macOS's process table, as XNU fills struct kinfo_proc: p_stat 5 is a zombie, and the start
// time is kept to the microsecond, so two processes on one pid never compare equal.
func TestKinfoMeaning(t *testing.T) {
	live := kinfo{Pid: 4242, Ppid: 1, Stat: 2, StartSec: 1764500000, StartUsec: 123456}.info()
	if live.Pid != 4242 || live.Ppid != 1 || live.Zombie || live.Start != 1764500000123456 {
		t.Errorf("running process read as %+v", live)
	}
	if z := (kinfo{Pid: 4242, Stat: sZomb, StartSec: 1}).info(); !z.Zombie {
		t.Errorf("p_stat SZOMB read as %+v", z)
	}
	later := kinfo{Pid: 4242, Ppid: 1, Stat: 3, StartSec: 1764500000, StartUsec: 123457}.info()
	if later.Start == live.Start {
		t.Error("a later process on the same pid has the same start time")
	}
}

func TestParseProcArgs(t *testing.T) {
	b := []byte{3, 0, 0, 0}
	b = append(b, "/usr/bin/harness\x00\x00\x00\x00harness\x00--report\x00/tmp/cp1/report-1.json\x00PATH=/bin\x00"...)
	args, err := parseProcArgs(b)
	if err != nil || strings.Join(args, " ") != "harness --report /tmp/cp1/report-1.json" {
		t.Errorf("got %q %v", args, err)
	}
	if _, err := parseProcArgs([]byte{1}); err == nil {
		t.Error("a short buffer accepted")
	}
}
