package redgreen

import (
	"strings"
	"testing"
	"time"
)

// The Reproduce line a receipt prints is written from the flags' table (Args): every flag set
// away from its default, in the table's order, and none at its default. Pinned here so that a
// move of the table changes no receipt.
func TestReproduceArgsKeepTheirOrder(t *testing.T) {
	f := DefaultFlags()
	if got := f.Args(); len(got) != 0 {
		t.Errorf("the defaults give a command line: %q", got)
	}
	f.Red, f.Green, f.Repeat, f.AllowDirty = "HEAD~1", "HEAD", 2, true
	f.Targets, f.Lane, f.Suites, f.Procs = []string{"/m.yaml"}, "linux-idle", []string{"./suites/a", "./suites/b"}, 3
	f.Focus, f.LabelFilter, f.Timeout, f.Vars, f.Out, f.Repo = "x", "direct", 2*time.Hour, []string{"variant=noclass"}, "/o", "/r"
	want := "--red HEAD~1 --green HEAD --repeat 2 --allow-dirty --target /m.yaml --lane linux-idle --suite ./suites/a --suite ./suites/b --procs 3 --focus x --label-filter direct --timeout 2h0m0s --var variant=noclass --out /o --repo /r"
	if got := strings.Join(f.Args(), " "); got != want {
		t.Errorf("Args:\n got %s\nwant %s", got, want)
	}
	f = DefaultFlags()
	f.RedTarget, f.GreenTarget = "/red.yaml", "/green.yaml"
	if got := strings.Join(f.Args(), " "); got != "--red-target /red.yaml --green-target /green.yaml" {
		t.Errorf("prebuilt sides: %s", got)
	}
}
