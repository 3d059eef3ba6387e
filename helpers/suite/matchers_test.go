package suite

import (
	"strings"
	"testing"

	"github.com/onsi/gomega"

	"github.com/classproof/classproof/helpers/oracle"
)

// The matcher's message is the receipt a red run prints: check it says which process, which pid,
// what ps said, what was expected and the control's value.
func TestBeAtBackgroundMessageIsAReceipt(t *testing.T) {
	control := oracle.Observation{Role: "control sleep", Pid: 4200, GOOS: "darwin", Pri: 31, Nice: "0", PS: "4200  31  0"}
	tool := oracle.Observation{Role: "hosted tool sleep", Pid: 4242, GOOS: "darwin", Pri: 31, Nice: "0", PS: "4242  31  0"}
	m := BeAtBackground(oracle.DarwinBG, control)
	ok, err := m.Match([]oracle.Observation{tool})
	if err != nil || ok {
		t.Fatalf("ok=%v err=%v", ok, err)
	}
	msg := m.FailureMessage([]oracle.Observation{tool})
	for _, want := range []string{
		"FAIL hosted tool sleep pid 4242: ps pri 31 nice 0 -- ps pri 31, expected 4 (darwinbg) [decided by ps pri; base pri unread (not read)]",
		`ps said "4242  31  0"`,
		"expected each to be at background = base pri 4, or ps pri 4 where the base priority was not read (darwinbg)",
		"control control sleep pid 4200: ps pri 31 nice 0",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
}

// On macOS the receipt says which reading decided: the base priority, read on both sides, over
// a ps pri that decayed on a busy runner.
func TestReceiptsSayWhichReadingDecided(t *testing.T) {
	control := oracle.Observation{Role: "control sleep", Pid: 4200, GOOS: "darwin", Pri: 31, Nice: "0", BasePri: 31, BaseRead: true}
	busy := oracle.Observation{Role: "direct harness", Pid: 4242, GOOS: "darwin", Pri: 24, Nice: "0", BasePri: 31, BaseRead: true}
	m := HaveControlClass(control)
	if ok, err := m.Match(busy); err != nil || !ok {
		t.Fatalf("a harness at the control's base priority, ps pri decayed to 24, refused: %v", err)
	}
	bg := busy
	bg.BasePri = 4
	if ok, _ := m.Match(bg); ok {
		t.Fatal("base pri 4 taken for the control's class")
	}
	if msg := m.FailureMessage(bg); !strings.Contains(msg, "base pri 4, control's 31 (ps pri 24, control's 31) [decided by base pri]") {
		t.Errorf("receipt does not say the base priority decided:\n%s", msg)
	}
	unread := control
	unread.BaseRead, unread.BaseErr = false, "operation not permitted"
	m = HaveControlClass(unread)
	if ok, _ := m.Match(busy); ok {
		t.Fatal("with the control's base unread, ps pri 24 against 31 passed")
	}
	if msg := m.FailureMessage(busy); !strings.Contains(msg, "[decided by ps pri; base pri unread (the control's: operation not permitted)]") {
		t.Errorf("receipt does not say ps pri decided, and why:\n%s", msg)
	}
}

func TestMatchersRefuseNothingToCheck(t *testing.T) {
	g := gomega.NewWithT(t)
	_, err := HaveControlClass(oracle.Observation{}).Match([]oracle.Observation{})
	g.Expect(err).To(gomega.MatchError(gomega.ContainSubstring("proves nothing")))
	_, err = HaveControlClass(oracle.Observation{}).Match(42)
	g.Expect(err).To(gomega.HaveOccurred())
}

// Every process a matcher judges is recorded, pass or fail, named by the reading that decided,
// once per distinct reading however often Consistently asks.
func TestEveryJudgedProcessIsRecorded(t *testing.T) {
	var names []string
	old := recordEntry
	recordEntry = func(name, _ string) { names = append(names, name) }
	defer func() { recordEntry = old }()
	control := oracle.Observation{Role: "control sleep", Pid: 4200, GOOS: "darwin", Pri: 31, Nice: "0", BasePri: 31, BaseRead: true}
	bg := oracle.Observation{Role: "direct harness", Pid: 4242, GOOS: "darwin", Pri: 4, Nice: "0", BasePri: 4, BaseRead: true}
	unread := oracle.Observation{Role: "direct tool sleep #1", Pid: 4243, GOOS: "darwin", Pri: 4, Nice: "0", BaseErr: "EPERM"}
	m := BeAtBackground(oracle.DarwinBG, control)
	for i := 0; i < 3; i++ {
		if ok, err := m.Match([]oracle.Observation{bg, unread}); !ok || err != nil {
			t.Fatalf("ok %v err %v", ok, err)
		}
	}
	want := []string{"classproof.reading base pri", "classproof.reading ps pri"}
	if strings.Join(names, "|") != strings.Join(want, "|") {
		t.Errorf("recorded %q, want %q", names, want)
	}
}

func init() {
	// Outside a Ginkgo suite there is no spec to add an entry to.
	recordEntry = func(string, string) {}
}
