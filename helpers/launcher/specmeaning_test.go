package launcher

import (
	"errors"
	"strings"
	"testing"
)

const (
	specOlder  = `{"argv": ["/h", "--report", "/r"], "env": ["PATH=/usr/bin:/bin", "HOME=/d"], "cwd": "/d"}`
	specNewer  = `{"argv": ["/h", "--report", "/r"], "env": ["PATH=/usr/bin:/bin", "HOME=/d"], "cwd": "/d", "cpu_class": "background", "cpu_budget": {"seconds": 600, "action": "throttle"}, "sandbox": "workspace-write", "spec_version": 3}`
	specNormal = `{"argv": ["/h", "--report", "/r"], "env": ["PATH=/usr/bin:/bin", "HOME=/d"], "cwd": "/d", "cpu_class": "normal"}`
)

// changes reads both sides as the kit does and lists what the translation changed.
func changes(t *testing.T, kit, host string) []string {
	t.Helper()
	k, err := readSpecJSON([]byte(kit))
	if err != nil {
		t.Fatalf("the kit's spec %s: %v", kit, err)
	}
	h, err := readSpecJSON([]byte(host))
	if err != nil {
		t.Fatalf("the translation %s: %v", host, err)
	}
	return specChanges(k, h)
}

// A translator that defaulted a missing cpu_class to normal, dropped a newer daemon's fields and
// tagged every other spec's env kept every spec distinct, and passed two known-bad hosts (issue
// 68): read back, each of those is a change of meaning, named by its field.
func TestATranslationThatChangesMeaningIsNamedByField(t *testing.T) {
	for _, c := range []struct{ name, kit, host, want string }{
		{"no cpu_class made normal", specOlder,
			`{"argv":["/h","--report","/r"],"env":["PATH=/usr/bin:/bin","HOME=/d"],"cwd":"/d","cpu_class":"normal"}`,
			`cpu_class: the kit's spec has none, the translation "normal"`},
		{"no cpu_class made null", specOlder,
			`{"argv":["/h","--report","/r"],"env":["PATH=/usr/bin:/bin","HOME=/d"],"cwd":"/d","cpu_class":null}`,
			`cpu_class: the kit's spec has none, the translation null`},
		{"unknown fields dropped, env tagged", specNewer,
			`{"argv":["/h","--report","/r"],"env":["PATH=/usr/bin:/bin","HOME=/d","NOTE=x"],"cwd":"/d","cpu_class":"background"}`,
			`cpu_budget: the kit's spec has {"action":"throttle","seconds":600}, the translation none; env: the translation gives the harness another environment than the kit's spec: "NOTE=x" added; sandbox: the kit's spec has "workspace-write", the translation none; spec_version: the kit's spec has 3, the translation none`},
		{"env tagged, as an object", specNormal,
			`{"argv":["/h","--report","/r"],"env":{"PATH":"/usr/bin:/bin","HOME":"/d","NOTE":""},"cwd":"/d","cpu_class":"normal"}`,
			`env: the translation gives the harness another environment than the kit's spec: "NOTE=" added`},
		{"env entries dropped and changed", specNormal,
			`{"argv":["/h","--report","/r"],"env":{"PATH":"/bin"},"cwd":"/d","cpu_class":"normal"}`,
			`env: the translation gives the harness another environment than the kit's spec: "HOME=/d" dropped, "PATH=/usr/bin:/bin" made "PATH=/bin"`},
		{"a field of its own", specNormal,
			`{"argv":["/h","--report","/r"],"env":["PATH=/usr/bin:/bin","HOME=/d"],"cwd":"/d","cpu_class":"normal","x_class":"normal"}`,
			`x_class: the kit's spec has none, the translation "normal"`},
		{"a nested value changed", specNewer,
			`{"argv":["/h","--report","/r"],"env":["PATH=/usr/bin:/bin","HOME=/d"],"cwd":"/d","cpu_class":"background","cpu_budget":{"seconds":600},"sandbox":"workspace-write","spec_version":3}`,
			`cpu_budget: the kit's spec has {"action":"throttle","seconds":600}, the translation {"seconds":600}`},
		{"a number a float64 would round", specNewer,
			`{"argv":["/h","--report","/r"],"env":["PATH=/usr/bin:/bin","HOME=/d"],"cwd":"/d","cpu_class":"background","cpu_budget":{"seconds":600,"action":"throttle"},"sandbox":"workspace-write","spec_version":3.0000000000000001}`,
			`spec_version: the kit's spec has 3, the translation 3.0000000000000001`},
		{"argv gone", `{"argv": [], "cpu_class": "background"}`, `{"cpu_class": "background"}`,
			`argv: the kit's spec has [], the translation none`},
		{"argv made empty", `{"cpu_class": "background"}`, `{"argv": [], "cpu_class": "background"}`,
			`argv: the kit's spec has none, the translation []`},
		{"cwd changed", specNormal,
			`{"argv":["/h","--report","/r"],"env":["PATH=/usr/bin:/bin","HOME=/d"],"cwd":"/","cpu_class":"normal"}`,
			`cwd: the kit's spec has "/d", the translation "/"`},
		{"a name given twice cannot be an object", `{"argv": ["/h"], "env": ["A=1", "A=2"]}`, `{"argv": ["/h"], "env": {"A": "2"}}`,
			`env: the kit's spec has ["A=1","A=2"]`},
		{"an entry with no = cannot be an object", `{"argv": ["/h"], "env": ["A"]}`, `{"argv": ["/h"], "env": {"A": ""}}`,
			`env: the kit's spec has ["A"]`},
		{"an env value not a string", `{"argv": ["/h"], "env": ["A=1"]}`, `{"argv": ["/h"], "env": {"A": 1}}`,
			`env: the kit's spec has ["A=1"], the translation {"A":1}`},
		{"an env value null", `{"argv": ["/h"], "env": ["A="]}`, `{"argv": ["/h"], "env": {"A": null}}`,
			`env: the kit's spec has ["A="], the translation {"A":null}`},
		{"a null field lost", `{"argv": ["/h"], "x": null}`, `{"argv": ["/h"]}`, `x: the kit's spec has null, the translation none`},
		{"env given as a string", `{"argv": ["/h"], "env": ["A=1"]}`, `{"argv": ["/h"], "env": "A=1"}`,
			`env: the kit's spec has ["A=1"], the translation "A=1"`},
		{"a string as a number", `{"argv": ["/h"], "spec_version": 3}`, `{"argv": ["/h"], "spec_version": "3"}`,
			`spec_version: the kit's spec has 3, the translation "3"`},
		{"a list cut", `{"argv": ["/h", "-v"]}`, `{"argv": ["/h"]}`, `argv: the kit's spec has ["/h","-v"], the translation ["/h"]`},
		{"a list of numbers as strings", `{"argv": ["/h"], "n": [1]}`, `{"argv": ["/h"], "n": ["1"]}`, `n: the kit's spec has [1], the translation ["1"]`},
		{"a field renamed", specNormal,
			`{"argv":["/h","--report","/r"],"env":["PATH=/usr/bin:/bin","HOME=/d"],"cwd":"/d","cpuClass":"normal"}`,
			`cpuClass: the kit's spec has none, the translation "normal"; cpu_class: the kit's spec has "normal", the translation none`},
	} {
		got := strings.Join(changes(t, c.kit, c.host), "; ")
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: the kit said %q, want it to begin %q", c.name, got, c.want)
		}
	}
}

// What a format may change (key order, spacing, escapes, how a number is written, env's shape)
// means the same: the docs' jq translator (env strings to an object, none to {}) passes.
func TestATranslationThatKeepsMeaningPasses(t *testing.T) {
	for _, c := range []struct{ name, kit, host string }{
		{"the docs' translator, env as an object", specNewer,
			`{"argv":["/h","--report","/r"],"env":{"PATH":"/usr/bin:/bin","HOME":"/d"},"cwd":"/d","cpu_class":"background","cpu_budget":{"seconds":600,"action":"throttle"},"sandbox":"workspace-write","spec_version":3}`},
		{"the docs' translator, no cpu_class kept none", specOlder,
			`{"argv":["/h","--report","/r"],"env":{"HOME":"/d","PATH":"/usr/bin:/bin"},"cwd":"/d"}`},
		{"no env given as {}", `{"argv": ["/h"]}`, `{"argv": ["/h"], "env": {}}`},
		{"no env given as []", `{"argv": ["/h"]}`, `{"argv": ["/h"], "env": []}`},
		{"a value with its own =", `{"argv": ["/h"], "env": ["X=a=b", "E="]}`, `{"argv": ["/h"], "env": {"X": "a=b", "E": ""}}`},
		{"env strings in another order", `{"argv": ["/h"], "env": ["A=1", "B=2"]}`, `{"argv": ["/h"], "env": ["B=2", "A=1"]}`},
		{"a name twice, kept as a list", `{"argv": ["/h"], "env": ["A=1", "A=2"]}`, `{"argv": ["/h"], "env": ["A=1", "A=2"]}`},
		{"keys reordered, escaped, spaced", specNormal,
			"{ \"cpu\\u005fclass\" : \"normal\",\n \"cwd\": \"/d\", \"env\": [\"PATH=/usr/bin:/bin\", \"HOME=/d\"], \"argv\": [\"/h\", \"--report\", \"/r\"] }\n"},
		{"a number written another way", `{"argv": ["/h"], "n": 600, "f": 0.5}`, `{"argv": ["/h"], "n": 6e2, "f": 5E-1}`},
		{"nulls and booleans", `{"argv": ["/h"], "x": null, "y": [true, false]}`, `{"argv": ["/h"], "x": null, "y": [true, false]}`},
	} {
		if got := changes(t, c.kit, c.host); len(got) > 0 {
			t.Errorf("%s: the kit called it a change of meaning: %q", c.name, got)
		}
	}
}

// The kit reads a translation as a host reads JSON, or not at all: where JSON parsers differ
// (which of two equal keys counts, what follows the object) the host could read what the kit
// did not, so such bytes are refused, never judged by the kit's own guess.
func TestATranslationTheKitCannotReadAlikeIsRefused(t *testing.T) {
	deep := `{"a":` + strings.Repeat("[", maxSpecDepth+1) + strings.Repeat("]", maxSpecDepth+1) + "}"
	for _, c := range []struct{ name, host, want string }{
		{"a key twice", `{"argv":["/h"],"cpu_class":"background","cpu_class":"normal"}`, `the key "cpu_class" twice`},
		{"a key twice, one escaped", `{"argv":["/h"],"cpu_class":"background","cpu\u005fclass":"normal"}`, `the key "cpu_class" twice`},
		{"a nested key twice", `{"argv":["/h"],"b":{"s":1,"s":2}}`, `the key "s" twice`},
		{"a second object", `{"argv":["/h"]}` + "\n" + `{"argv":["/h"]}`, "more after the object"},
		{"data after the object", `{"argv":["/h"]} x`, "more after the object"},
		{"an array", `[{"argv":["/h"]}]`, "a JSON array, not an object"},
		{"a string", `"spec"`, "a JSON string, not an object"},
		{"a number", `3`, "a JSON number, not an object"},
		{"true", `true`, "a JSON boolean, not an object"},
		{"null", `null`, "a JSON null, not an object"},
		{"not UTF-8", "{\"argv\":[\"/h\xff\"]}", "not valid UTF-8"},
		{"a trailing comma", `{"argv":["/h"],}`, "invalid character"},
		{"cut short", `{"argv":["/h"`, "EOF"},
		{"nothing", ``, "EOF"},
		{"nested too deep", deep, "nested deeper than"},
	} {
		_, err := SpawnSpecChanges([]byte(`{"argv":["/h"]}`), []byte(c.host))
		var unreadable *unreadableError
		if !errors.As(err, &unreadable) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: read %q: %v, want a translation the kit cannot read, with %q", c.name, c.host, err, c.want)
		}
	}
	if _, err := readSpecJSON([]byte(`{"a":` + strings.Repeat("[", maxSpecDepth) + strings.Repeat("]", maxSpecDepth) + "}")); err != nil {
		t.Errorf("nested to the bound: %v", err)
	}
}
