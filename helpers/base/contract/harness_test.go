package contract

import (
	"encoding/json"
	"testing"
)

// The report is a wire format between two programs built apart (the harness, and the kit that
// reads it back with the same type): its JSON keys stay as they are.
func TestTheHarnessReportKeepsItsKeys(t *testing.T) {
	r := HarnessReport{HarnessPid: 42, HarnessStart: 7, Tools: []HarnessTool{{Pid: 43, Start: 8}}}
	b, err := json.Marshal(r)
	if want := `{"harness_pid":42,"harness_start":7,"tools":[{"pid":43,"start":8}]}`; err != nil || string(b) != want {
		t.Fatalf("the harness writes %s (%v); the kit reads %s", b, err, want)
	}
}
