package oracle

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// PSFields are the ps -o columns the oracle asks for, per OS. macOS ps has no cls column; its
// stat column tells a zombie (Z), whose pri reads 0 because it has no task left to ask
// (adv_cmds ps/print.c pri(): the thread's current priority, from the task's threads).
var PSFields = map[string]string{
	"darwin": "pid=,pri=,nice=,stat=",
	"linux":  "pid=,cls=,ni=,pri=",
}

// ParsePS reads the lines of `ps -o PSFields[goos] -p ...` into observations keyed by pid.
// Lines are whitespace-separated; a blank line is skipped, anything else malformed is an error
// that quotes the line.
func ParsePS(goos string, out []byte) (map[int]Observation, error) {
	want := map[string]int{"darwin": 4, "linux": 4}[goos]
	if want == 0 {
		return nil, fmt.Errorf("ps parsing: unsupported OS %q", goos)
	}
	res := map[int]Observation{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != want {
			return nil, fmt.Errorf("ps line %q: %d fields, expected %d (%s)", line, len(f), want, PSFields[goos])
		}
		pid, err := strconv.Atoi(f[0])
		if err != nil {
			return nil, fmt.Errorf("ps line %q: pid %q is not a number", line, f[0])
		}
		o := Observation{Pid: pid, GOOS: goos, PS: strings.TrimSpace(line)}
		var priField string
		if goos == "darwin" {
			priField, o.Nice, o.Stat = f[1], f[2], f[3]
		} else {
			o.Cls, o.Nice, priField = f[1], f[2], f[3]
		}
		if o.Pri, err = strconv.Atoi(priField); err != nil {
			return nil, fmt.Errorf("ps line %q: pri %q is not a number", line, priField)
		}
		res[pid] = o
	}
	return res, sc.Err()
}

// ParseAutogroup reads /proc/PID/autogroup: "/autogroup-12 nice 0". The kernel prints nothing
// for a process in the default autogroup (the root task group: init's session and every process
// below it that never called setsid, as a CI job started straight by init may be); that is name ""
// and nice 0, not an error.
func ParseAutogroup(b []byte) (name string, nice int, err error) {
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "", 0, nil
	}
	if len(f) != 3 || f[1] != "nice" {
		return "", 0, fmt.Errorf("autogroup %q: expected \"/autogroup-N nice X\"", strings.TrimSpace(string(b)))
	}
	nice, err = strconv.Atoi(f[2])
	return f[0], nice, err
}
