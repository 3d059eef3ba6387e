package bisect

import (
	"strings"
	"testing"
	"time"
)

// The receipt's Reproduce line is written from the flags' table (Args): every flag set away from
// its default, in the table's order. Pinned here so that a move of the table changes no receipt.
func TestReproduceArgsKeepTheirOrder(t *testing.T) {
	f := DefaultFlags()
	if got := f.Args(); len(got) != 0 {
		t.Errorf("the defaults give a command line: %q", got)
	}
	f.Good, f.Bad, f.Targets, f.Lane, f.Suites, f.Procs = "v1", "main", []string{"/m.yaml"}, "linux-idle", []string{"./suites/a"}, 2
	f.Focus, f.LabelFilter, f.Timeout, f.Vars, f.Out, f.Repo = "x", "direct", time.Hour, []string{"a=b"}, "/o", "/r"
	want := "--good v1 --bad main --target /m.yaml --lane linux-idle --suite ./suites/a --procs 2 --focus x --label-filter direct --timeout 1h0m0s --var a=b --out /o --repo /r"
	if got := strings.Join(f.Args(), " "); got != want {
		t.Errorf("Args:\n got %s\nwant %s", got, want)
	}
}
