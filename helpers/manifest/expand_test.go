package manifest

import (
	"strings"
	"testing"
)

// An unfilled placeholder is named at the one manifest key it sits at, whichever part of a
// command holds it: the section's argv, env or folder, or a client command's own argv key and
// the env it shares with others.
func TestExpandNamesTheKeyItCouldNotFill(t *testing.T) {
	m := &Manifest{Source: "t.yaml"}
	vals := map[string]string{"bin": "/b", "kit": "/k"}
	for _, c := range []struct {
		at   At
		cmd  Command
		want string
	}{
		{Section("build"), Command{Run: []string{"make", "{repo}"}}, "build.run: placeholders with no value here: {repo}"},
		{Section("build"), Command{Run: []string{"make"}, Env: map[string]string{"OUT": "{bn}"}}, "build.env.OUT: placeholders with no value here: {bn}"},
		{Section("build"), Command{Run: []string{"make"}, Dir: "{repo}/src"}, "build.dir: placeholders with no value here: {repo}"},
		{Section("daemon"), Command{Run: []string{"{bin}/d"}, Env: map[string]string{"HOME": "{hme}"}}, "daemon.env.HOME: placeholders"},
		{At{Run: "config.set", Env: "config.env"}, Command{Run: []string{"{bin}/c", "{key}"}}, "config.set: placeholders with no value here: {key}"},
		{At{Run: "config.set", Env: "config.env"}, Command{Run: []string{"{bin}/c"}, Env: map[string]string{"X": "{y}"}}, "config.env.X: placeholders"},
	} {
		_, err := m.Expand(c.at, c.cmd, vals)
		if err == nil || !strings.Contains(err.Error(), "target manifest t.yaml: "+c.want) {
			t.Errorf("Expand(%+v, %+v): got %v, want it to name %q", c.at, c.cmd, err, c.want)
		}
	}
	x, err := m.Expand(Section("build"), Command{Run: []string{"{bin}/x", "{{"}, Env: map[string]string{"K": "{kit}"}, Dir: "{kit}/d"}, vals)
	if err != nil || strings.Join(x.Argv, " ") != "/b/x {" || x.Env["K"] != "/k" || x.Dir != "/k/d" || x.Field != "build.run" {
		t.Errorf("Expand filled %+v, %v; want argv [/b/x {], env K=/k, dir /k/d, field build.run", x, err)
	}
}
