package launcher

import (
	"bytes"
	"strings"
	"testing"
)

// The build line is the command as it runs: a placeholder that expanded to nothing shows as ""
// (a newcomer's empty {repo} hid behind "make -C {repo}").
func TestTheBuildLineShowsTheExpandedCommand(t *testing.T) {
	var b bytes.Buffer
	logBuild(&b, "mylauncher", "/work/src", []string{"make", "-C", "", "OUT=/tmp/bin dir", "all"})
	want := `classproof: building target mylauncher in /work/src: make -C "" "OUT=/tmp/bin dir" all` + "\n"
	if got := b.String(); got != want {
		t.Errorf("build line %q, want %q", got, want)
	}
	if strings.Contains(b.String(), "{") {
		t.Errorf("a template in the build line: %q", b.String())
	}
}
