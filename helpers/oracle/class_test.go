package oracle

import (
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/classproof/classproof/fixtures/ps"
	"github.com/classproof/classproof/helpers/base/contract"
)

func TestParseDarwinPS(t *testing.T) {
	rows, err := ParsePS("darwin", ps.MustRead(t, "darwin-pid-pri-nice.txt"))
	if err != nil {
		t.Fatal(err)
	}
	bg, normal, utility := rows[512], rows[513], rows[514]
	if bg.Pri != 4 || normal.Pri != 31 || utility.Pri != 20 {
		t.Fatalf("pri: got %d %d %d, want 4 31 20", bg.Pri, normal.Pri, utility.Pri)
	}
	bg.Role, normal.Role, utility.Role = "harness", "control sleep", "utility sleep"
	if ok, why := Background(DarwinBG, bg, normal); !ok {
		t.Errorf("pri 4 is darwinbg, got not: %s", why)
	}
	if ok, _ := Background(DarwinBG, normal, normal); ok {
		t.Error("pri 31 taken for darwinbg")
	}
	ok, why := Background(DarwinBG, utility, normal)
	if ok || why != "ps pri 20, expected 4 (darwinbg)" {
		t.Errorf("utility: ok=%v why=%q", ok, why)
	}
	if ok, why := SameClass(utility, normal); ok || !strings.Contains(why, "ps pri 20, control's 31") {
		t.Errorf("utility vs control: ok=%v why=%q", ok, why)
	}
	if z := rows[516]; z.Stat != "Z" || z.Pri != 0 {
		t.Errorf("zombie row read as %+v", z)
	}
}

// On macOS ps pri is a thread's current priority: a busy background process can read below 4.
// The task's base priority (proc_pidinfo) decides when it was read; ps pri alone otherwise.
func TestDarwinBaseDecides(t *testing.T) {
	rows, err := ParsePS("darwin", ps.MustRead(t, "darwin-pid-pri-nice.txt"))
	if err != nil {
		t.Fatal(err)
	}
	busy, normal := rows[515], rows[513]
	busy.Role = "busy harness"
	if ok, _ := Background(DarwinBG, busy, normal); ok {
		t.Error("ps pri 2 with no base priority read taken for darwinbg")
	}
	busy.BasePri, busy.BaseRead = 4, true
	if ok, why := Background(DarwinBG, busy, normal); !ok {
		t.Errorf("base pri 4 refused: %s", why)
	}
	normal.BasePri, normal.BaseRead = 31, true
	if ok, why := Background(DarwinBG, normal, normal); ok || why != "base pri 31 (ps pri 31), expected 4 (darwinbg)" {
		t.Errorf("base pri 31: ok=%v why=%q", ok, why)
	}
	if s := busy.Summary(); s != "ps pri 2 nice 0 stat R, base pri 4" {
		t.Errorf("receipt %q", s)
	}
	utility := rows[514]
	utility.BasePri, utility.BaseRead = 20, true
	if ok, why := SameClass(utility, normal); ok || !strings.Contains(why, "base pri 20, control's 31") {
		t.Errorf("utility vs control: ok=%v why=%q", ok, why)
	}
}

// macOS ps pri decays under load: two processes of one class, both base priorities read, are
// the same class whatever ps pri says; with either base unread, ps pri decides.
func TestDarwinControlComparisonUsesBase(t *testing.T) {
	control := Observation{GOOS: "darwin", Pri: 31, Nice: "0", BasePri: 31, BaseRead: true}
	decayed := Observation{GOOS: "darwin", Pri: 20, Nice: "0", BasePri: 31, BaseRead: true}
	if ok, why := SameClass(decayed, control); !ok {
		t.Errorf("same base priority, ps pri decayed: %s", why)
	}
	if d := DecidedBy(decayed, &control); d.String() != "decided by base pri" || d.Reading != contract.ReadingBasePri {
		t.Errorf("DecidedBy = %q", d)
	}
	noBase := control
	noBase.BaseRead = false
	if ok, why := SameClass(decayed, noBase); ok || why != "ps pri 20, control's 31" {
		t.Errorf("control's base unread: ok=%v why=%q", ok, why)
	}
	if d := DecidedBy(decayed, &noBase); d.String() != "decided by ps pri; base pri unread (the control's: not read)" || d.Reading != contract.ReadingPsPri {
		t.Errorf("DecidedBy = %q", d)
	}
	linux := Observation{GOOS: "linux", Pri: 19, Cls: "TS"}
	if d := DecidedBy(linux, &linux); d.String() != "" || d.Reading != contract.ReadingEveryField {
		t.Errorf("Linux DecidedBy = %q, want none", d)
	}
}

func TestParseLinuxPS(t *testing.T) {
	rows, err := ParsePS("linux", ps.MustRead(t, "linux-cls-ni-pri.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("got %d rows, want 3", len(rows))
	}
	idle, normal, niced := rows[14050], rows[14052], rows[14053]
	if idle.Cls != "IDL" || idle.Nice != "-" || idle.Pri != 19 {
		t.Errorf("idle row: %+v", idle)
	}
	// ps pri is 19 for both SCHED_IDLE and normal: pri alone cannot tell them apart on Linux.
	if normal.Pri != idle.Pri {
		t.Errorf("expected equal pri for idle and normal, got %d and %d", idle.Pri, normal.Pri)
	}
	if niced.Nice != "10" || niced.Cls != "TS" {
		t.Errorf("nice 10 row: %+v", niced)
	}
}

func TestParsePSRejectsMalformedLines(t *testing.T) {
	for _, in := range []string{"123 TS 0", "abc TS 0 19", "123 TS 0 x"} {
		if _, err := ParsePS("linux", []byte(in)); err == nil || !strings.Contains(err.Error(), in) {
			t.Errorf("%q: want an error quoting the line, got %v", in, err)
		}
	}
	if _, err := ParsePS("plan9", nil); err == nil {
		t.Error("unknown OS accepted")
	}
}

func TestParseAutogroup(t *testing.T) {
	name, nice, err := ParseAutogroup(ps.MustRead(t, "linux-autogroup.txt"))
	if err != nil || name != "/autogroup-2" || nice != 0 {
		t.Fatalf("got %q %d %v", name, nice, err)
	}
	if _, _, err := ParseAutogroup([]byte("garbage")); err == nil {
		t.Error("garbage accepted")
	}
	if name, nice, err := ParseAutogroup(ps.MustRead(t, "linux-autogroup-default.txt")); err != nil || name != "" || nice != 0 {
		t.Errorf("default autogroup: got %q %d %v", name, nice, err)
	}
}

// A CI job started straight by init runs the kit in the default autogroup, whose file is empty;
// the oracle must read such a process, not refuse it (it once failed every spec's control).
func TestObserveInTheDefaultAutogroup(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("autogroups are Linux's")
	}
	b, err := os.ReadFile("/proc/1/autogroup")
	if err != nil || len(strings.TrimSpace(string(b))) != 0 {
		t.Skipf("pid 1 is not in the default autogroup here (/proc/1/autogroup: %q, %v): nothing to read", b, err)
	}
	o, err := ObserveOne("init", 1)
	if err != nil {
		t.Fatalf("observing pid 1 in the default autogroup: %v", err)
	}
	if o.Autogroup != "" || o.AutogroupNice != 0 {
		t.Errorf("pid 1: autogroup %q nice %d, expected the default (\"\", 0)", o.Autogroup, o.AutogroupNice)
	}
}

func TestLinuxIdleNeedsEveryPart(t *testing.T) {
	control := Observation{Role: "control", GOOS: "linux", Cls: "TS", Nice: "0", Pri: 19, Policy: 0, IOClass: 0, Autogroup: "/autogroup-2"}
	full := Observation{Role: "harness", GOOS: "linux", Cls: "IDL", Nice: "-", Pri: 19, Policy: 5, IOClass: 3, Autogroup: "/autogroup-9", AutogroupNice: 19}
	if ok, why := Background(LinuxIdle, full, control); !ok {
		t.Fatalf("full idle rejected: %s", why)
	}
	cases := map[string]func(o *Observation){
		"io class none, expected idle":     func(o *Observation) { o.IOClass = 0 },
		"autogroup-9 nice 0, expected 19":  func(o *Observation) { o.AutogroupNice = 0 },
		"policy 0 SCHED_OTHER, expected 5": func(o *Observation) { o.Policy, o.Cls = 0, "TS" },
	}
	for want, breakIt := range cases {
		o := full
		breakIt(&o)
		if ok, why := Background(LinuxIdle, o, control); ok || !strings.Contains(why, want) {
			t.Errorf("%s: ok=%v why=%q", want, ok, why)
		}
	}
	// In the control's own autogroup, its nice is not the launcher's to change.
	shared := full
	shared.Autogroup, shared.AutogroupNice = control.Autogroup, 0
	if ok, why := Background(LinuxIdle, shared, control); !ok {
		t.Errorf("shared autogroup: %s", why)
	}
	// A kit in the default autogroup (a CI job started by init): a harness in a session of its
	// own still needs its autogroup at 19, and one left in the default has none to nice.
	initControl := control
	initControl.Autogroup = ""
	if ok, why := Background(LinuxIdle, full, initControl); !ok {
		t.Errorf("own autogroup at 19 against a default-autogroup control: %s", why)
	}
	unniced := full
	unniced.AutogroupNice = 0
	if ok, why := Background(LinuxIdle, unniced, initControl); ok || !strings.Contains(why, "autogroup-9 nice 0, expected 19") {
		t.Errorf("own autogroup at 0 against a default-autogroup control: ok=%v why=%q", ok, why)
	}
	inDefault := full
	inDefault.Autogroup, inDefault.AutogroupNice = "", 0
	if ok, why := Background(LinuxIdle, inDefault, initControl); !ok {
		t.Errorf("harness in the default autogroup: %s", why)
	}
}

func TestParseMeaning(t *testing.T) {
	if _, err := ParseMeaning("linux", "darwinbg"); err == nil || !strings.Contains(err.Error(), "accepted: idle, ignore") {
		t.Errorf("got %v", err)
	}
	if m, err := ParseMeaning("darwin", "darwinbg"); err != nil || m != DarwinBG {
		t.Errorf("got %v %v", m, err)
	}
}

// On Linux the scheduling policy is the class: two processes with the same ps pri and nice but
// another policy (cls) do not share a class.
func TestLinuxControlComparisonReadsThePolicy(t *testing.T) {
	o := Observation{Pid: 7, GOOS: "linux", Cls: "IDL", Nice: "-", Pri: 19}
	control := Observation{Pid: 8, GOOS: "linux", Cls: "TS", Nice: "-", Pri: 19}
	same, why := SameClass(o, control)
	if same || !strings.Contains(why, "ps cls IDL, control's TS") {
		t.Errorf("SameClass = %v, %q; want a difference in ps cls", same, why)
	}
	if same, why := SameClass(o, o); !same {
		t.Errorf("an observation differs from itself: %q", why)
	}
}

// The kit's own class at the start of a run against itself later: on macOS ps pri moves with a
// busy thread's decay and decides nothing; every setting (nice, base pri, and on Linux the
// autogroup's nice) does.
func TestSameSettingsIgnoresOnlyADecayedPsPri(t *testing.T) {
	start := Observation{GOOS: "darwin", Pri: 31, Nice: "0", BasePri: 31, BaseRead: true}
	decayed := start
	decayed.Pri = 24
	if same, why := SameSettings(decayed, start); !same {
		t.Errorf("a decayed ps pri counted as a change: %s", why)
	}
	lowered := start
	lowered.BasePri = 4
	if same, _ := SameSettings(lowered, start); same {
		t.Error("base pri 31 -> 4 was not a change")
	}
	linux := Observation{GOOS: "linux", Pri: 19, Nice: "0", Cls: "TS", Autogroup: "/autogroup-7"}
	niced := linux
	niced.AutogroupNice = 19
	if same, why := SameSettings(niced, linux); same || !strings.Contains(why, "autogroup nice 19") {
		t.Errorf("autogroup nice 0 -> 19: same %v, why %q", same, why)
	}
}

// Only macOS's ps pri is set aside (it decays with a busy thread): on Linux ps pri is a setting,
// and a change of it alone is a change.
func TestOnLinuxAPsPriChangeIsAChange(t *testing.T) {
	start := Observation{GOOS: "linux", Pri: 19, Nice: "0", Cls: "TS", Autogroup: "/autogroup-7"}
	moved := start
	moved.Pri = 39
	if same, why := SameSettings(moved, start); same || !strings.Contains(why, "ps pri 39, control's 19") {
		t.Errorf("ps pri 19 -> 39 on Linux: same %v, why %q", same, why)
	}
}

// A Linux receipt names the autogroup's nice only where it was read: a process in no autogroup
// of its own shows none, never an empty name with a nice.
func TestALinuxReceiptNamesTheAutogroupWhereRead(t *testing.T) {
	o := Observation{GOOS: "linux", Role: "direct harness", Pid: 7, Cls: "IDL", Nice: "0", Pri: 0, Policy: 5, IOClass: 3, Autogroup: "/autogroup-12", AutogroupNice: 19}
	if s := o.String(); !strings.Contains(s, ", autogroup-12 nice 19") {
		t.Errorf("with its autogroup read: %q", s)
	}
	o.Autogroup = ""
	if s := o.String(); strings.Contains(s, "nice 19") || strings.Contains(s, ",  nice") {
		t.Errorf("with no autogroup read: %q names one", s)
	}
}
