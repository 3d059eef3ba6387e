package kit

import (
	"strings"
	"testing"

	"github.com/onsi/gomega"

	"github.com/classproof/classproof/helpers/class"
)

// The matcher's message is the receipt a red run prints: check it says which process, which pid,
// what ps said, what was expected and the control's value.
func TestBeAtBackgroundMessageIsAReceipt(t *testing.T) {
	control := class.Observation{Role: "control sleep", Pid: 4200, GOOS: "darwin", Pri: 31, Nice: "0", PS: "4200  31  0"}
	tool := class.Observation{Role: "hosted tool sleep", Pid: 4242, GOOS: "darwin", Pri: 31, Nice: "0", PS: "4242  31  0"}
	m := BeAtBackground(class.DarwinBG, control)
	ok, err := m.Match([]class.Observation{tool})
	if err != nil || ok {
		t.Fatalf("ok=%v err=%v", ok, err)
	}
	msg := m.FailureMessage([]class.Observation{tool})
	for _, want := range []string{
		"FAIL hosted tool sleep pid 4242: ps pri 31 nice 0 -- ps pri 31, expected 4 (darwinbg)",
		`ps said "4242  31  0"`,
		"expected each to be at background = ps pri 4 (darwinbg)",
		"control control sleep pid 4200: ps pri 31 nice 0",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
}

func TestMatchersRefuseNothingToCheck(t *testing.T) {
	g := gomega.NewWithT(t)
	_, err := HaveControlClass(class.Observation{}).Match([]class.Observation{})
	g.Expect(err).To(gomega.MatchError(gomega.ContainSubstring("proves nothing")))
	_, err = HaveControlClass(class.Observation{}).Match(42)
	g.Expect(err).To(gomega.HaveOccurred())
}
