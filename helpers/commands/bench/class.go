package bench

import (
	"fmt"
	"runtime"
	"strings"
)

// Class is one way of starting the load.
type Class struct {
	Name string
	// Launcher: started as launcher sessions with the class env var set to this value.
	Launcher string
	// Otherwise the kit starts the load itself, in a session of its own (as a launcher would),
	// with these probe flags.
	Flags []string
	Note  string
}

// Classes available on this OS. The first is the baseline ("default").
func Classes() []Class {
	cs := []Class{
		{Name: "default", Launcher: "normal", Note: "the launcher's normal class"},
		{Name: "background", Launcher: "background", Note: "the launcher's background class"},
	}
	if runtime.GOOS == "linux" {
		cs = append(cs,
			Class{Name: "nice10", Flags: []string{"--nice", "10", "--autogroup", "10"}, Note: "nice 10 (process and its autogroup)"},
			Class{Name: "nice19", Flags: []string{"--nice", "19", "--autogroup", "19"}, Note: "nice 19 (process and its autogroup)"},
			Class{Name: "idle-no-autogroup", Flags: []string{"--sched", "idle"}, Note: "SCHED_IDLE in a session of its own, autogroup nice left at 0 (the trap)"},
		)
	}
	return cs
}

func pick(names []string) ([]Class, error) {
	all := Classes()
	if len(names) == 0 {
		return all, nil
	}
	var out []Class
	for _, n := range names {
		found := false
		for _, c := range all {
			if c.Name == n {
				out = append(out, c)
				found = true
			}
		}
		if !found {
			var known []string
			for _, c := range all {
				known = append(known, c.Name)
			}
			return nil, fmt.Errorf("class %q is not known on %s; known: %s", n, runtime.GOOS, strings.Join(known, ", "))
		}
	}
	if out[0].Name != "default" {
		return nil, fmt.Errorf("the first class must be default: the deltas are against it")
	}
	return out, nil
}
