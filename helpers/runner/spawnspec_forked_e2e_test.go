//go:build e2e

package runner_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The bytes a translation was judged by are the bytes spawn_spec is handed (review H1): a
// translator that prints the kit's spec unchanged, so that it is judged faithful, but leaves a
// process behind that rewrites the file spawn_spec is then handed (an older daemon's spec given
// cpu_class "normal"), passed missing-as-background through compat, 13 of 13. The spawn_spec here
// only passes the bytes on; it waits for the rewriter (or its end) so the race is decided the
// same way every time.
func TestWhatATranslatorForkedCannotRewriteTheSpecSent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and starts runs")
	}
	dir := reachable(t)
	scripts := map[string]string{
		// Judged faithful: prints the spec as it is. What it leaves behind is the attack.
		"translate.sh": `jq -c . "$1" || exit 1
sh "` + dir + `/rewriter.sh" </dev/null >/dev/null 2>&1 &
echo $! >bg.pid`,
		// Waits for the path spawn_spec is handed, gives an older daemon's spec cpu_class
		// "normal" in place, and says it is done, whether the write worked or not.
		"rewriter.sh": `i=0
while [ ! -s want ] && [ $i -lt 3000 ]; do i=$((i+1)); sleep 0.01; done
p=$(cat want 2>/dev/null) && rm -f want || exit 0
t=$(jq -c 'if has("cpu_class") then . else .cpu_class = "normal" end' "$p") && printf '%s\n' "$t" >"$p"
: >done`,
		// A transport: the bytes as they are, once the rewriter is done or gone.
		"send.sh": `refmux=$1 sock=$2 spec=$3
echo "$spec" >want.tmp && mv want.tmp want
bg=$(cat bg.pid 2>/dev/null)
i=0
while [ ! -e done ] && [ -n "$bg" ] && [ -e /proc/$bg ] && [ "$(cut -d' ' -f3 /proc/$bg/stat 2>/dev/null)" != Z ] && [ $i -lt 500 ]; do i=$((i+1)); sleep 0.01; done
rm -f done want
exec "$refmux" spawn-spec --socket "$sock" --file "$spec"`,
	}
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := `spawn_spec: ["{bin}/refmux", spawn-spec, --socket, "{host_socket}", --file, "{spec}"]`
	m := hostile(t, old, `spawn_spec_translate: [sh, "`+dir+`/translate.sh", "{spec}"]`+"\n"+
		`spawn_spec: [sh, "`+dir+`/send.sh", "{bin}/refmux", "{host_socket}", "{spec}"]`)
	code, log, _ := runCLI(t, nil, "run", "--target", m, "--var", "variant=missing-as-background", "--suite", "./suites/compat", "--out", t.TempDir())
	if code != 1 || !strings.Contains(log, "[FAILED]") || !strings.Contains(log, "an older daemon's spec") {
		t.Errorf("missing-as-background through a faithful translator that left a rewriter behind: exit %d, want 1 with %q failed: the host was sent bytes other than those judged:\n%s", code, "an older daemon's spec", log)
	}
}
