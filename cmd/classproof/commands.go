package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/classproof/classproof/helpers/build"
	"github.com/classproof/classproof/helpers/class"
)

// command is one of the CLI's commands: what `classproof help NAME` and `NAME --help` print.
type command struct {
	name, summary, example, exits string
	run                           func(args []string) int
}

// commands are set in init: their run functions print their own help.
var commands []command

func init() {
	commands = []command{
		{"run", "run the suites for this machine's lane against a target launcher",
			"classproof run --target ./classproof.yaml --repo .", "0 passed; 1 a spec failed, a process leaked or the run was interrupted; 2 bad flags or an unusable manifest or launcher", runCmd},
		{"redgreen", "prove a fix: specs fail on a red commit by their own assertion and pass on a green one",
			"classproof redgreen --red HEAD~1 --green HEAD --target ./classproof.yaml   (no selection: the proof is the fail-to-pass set; --focus/--label-filter narrow it)", "0 proven; 1 not proven; 2 bad refs, manifest or flags", redgreenCmd},
		{"mutants", "run the suites against every known-broken build of a target: which specs catch each",
			"classproof mutants --values-file out/variants.tsv --target embedded:refmux.yaml", "0 every variant caught; 1 one was not; 2 bad flags or no Go", needsGo("mutants", "it builds each known-broken variant of the launcher", mutantsCmd)},
		{"gate", "decide a release from every lane's reports",
			"classproof gate --reports out/lanes --required ci/required-specs.yaml", "0 pass; 1 blocked; 2 bad flags or an unreadable required list", gateCmd},
		{"bench", "does the class keep a foreground probe on time under load, and what does it cost",
			"classproof bench --out out/bench", "0 measured; 1 an expectation failed; 2 bad flags or no Go", needsGo("bench", "it builds the probe and the load", benchCmd)},
		{"required-specs", "make (or --check) ci/required-specs.yaml from a dry run of every lane",
			"classproof required-specs --check", "0 agrees or written; 1 disagrees; 2 bad flags", requiredCmd},
		{"doctor", "try a launcher once, for a first manifest: what it does, what the kit will leave out",
			"classproof doctor --target ./classproof.yaml", "0 the launcher can be driven; 1 it cannot; 2 an unusable manifest or launcher", doctorCmd},
		{"lanes", "the lane names, one a line", "classproof lanes", "0", lanesCmd},
		{"observe", "read processes with the oracle, as a spec would: ps, and the kernel's own readings (base pri on macOS)",
			"classproof observe 4242 4243", "0 every pid read; 1 one could not be read; 2 bad flags or no pid", observeCmd},
		{"version", "the kit's version, the Ginkgo and Go it was built with", "classproof version", "0", versionCmd},
		{"help", "what a command does, its flags, an example and its exit codes", "classproof help run", "0; 2 an unknown command", helpCmd},
	}
}

func lookup(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func usage() string {
	var b strings.Builder
	b.WriteString("usage: classproof COMMAND [flags]\n\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-15s %s\n", c.name, c.summary)
	}
	b.WriteString("\nRun 'classproof help COMMAND' (or 'classproof COMMAND --help') for its flags, an example and its exit codes.\n")
	return b.String()
}

// dispatch runs the command args name, or says which one was meant.
func dispatch(args []string) int {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage())
		return exitUsage
	}
	switch args[0] {
	case "-h", "--help":
		fmt.Print(usage())
		return exitPassed
	}
	c, ok := lookup(args[0])
	if !ok {
		names := make([]string, len(commands))
		for i, c := range commands {
			names[i] = c.name
		}
		fmt.Fprintf(os.Stderr, "classproof: unknown command %q; did you mean %q? ('classproof help' lists every command)\n", args[0], closest(args[0], names))
		return exitUsage
	}
	return c.run(args[1:])
}

func helpCmd(args []string) int {
	if len(args) == 0 {
		fmt.Print(usage())
		return exitPassed
	}
	if c, ok := lookup(args[0]); ok && c.name != "help" {
		return c.run([]string{"--help"})
	}
	return dispatch(args[:1])
}

// parse parses a command's flags. --help prints the command's help (exit 0); an unknown flag is
// one line naming the closest valid one (exit 2). ok is false when the command must stop there.
func parse(fs *flag.FlagSet, args []string) (code int, ok bool) {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	switch {
	case err == nil:
		return exitPassed, true
	case errors.Is(err, flag.ErrHelp):
		fmt.Print(commandHelp(fs))
		return exitPassed, false
	}
	msg := err.Error()
	if bad, found := strings.CutPrefix(msg, "flag provided but not defined: "); found {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		msg = fmt.Sprintf("unknown flag %s; did you mean --%s?", bad, closest(strings.TrimLeft(bad, "-"), names))
	}
	fmt.Fprintf(os.Stderr, "classproof %s: %s ('classproof help %s' lists every flag)\n", fs.Name(), msg, fs.Name())
	return exitUsage, false
}

func commandHelp(fs *flag.FlagSet) string {
	c, _ := lookup(fs.Name())
	var b strings.Builder
	fmt.Fprintf(&b, "usage: classproof %s [flags]\n\n%s.\n\nflags:\n", c.name, c.summary)
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fmt.Fprintf(&b, "\nexample:\n  %s\n\nexit codes: %s\n", c.example, c.exits)
	return b.String()
}

// closest is the option nearest to s by edit distance (ties: the first in order).
func closest(s string, options []string) string {
	best, bestD := "", -1
	for _, o := range options {
		if d := distance(s, o); bestD < 0 || d < bestD {
			best, bestD = o, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

func lanesCmd(args []string) int {
	fs := flag.NewFlagSet("lanes", flag.ContinueOnError)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	// ci/lane-check holds ci/lane to this list.
	fmt.Println(strings.Join(laneNames(), "\n"))
	return exitPassed
}

// observeCmd prints the oracle's line for each pid: ci/record-ps keeps it beside the runner's
// raw ps, so the base priority a lane's verdict rests on is recorded before the lane runs.
func observeCmd(args []string) int {
	fs := flag.NewFlagSet("observe", flag.ContinueOnError)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "classproof observe: give one or more pids")
		return exitUsage
	}
	code := exitPassed
	for _, a := range fs.Args() {
		pid, err := strconv.Atoi(a)
		if err != nil || pid <= 0 {
			fmt.Fprintf(os.Stderr, "classproof observe: %q is not a pid\n", a)
			return exitUsage
		}
		o, err := class.ObserveOne("process", pid)
		if err != nil {
			fmt.Fprintf(os.Stderr, "classproof observe: %v\n", err)
			code = exitFailed
			continue
		}
		line := o.String()
		if d := class.DecidedBy(o, nil); d != "" {
			line += " [" + d + "]"
		}
		fmt.Println(line)
	}
	return code
}

// versionCmd prints the kit's module version (or the commit of a checkout) and the Ginkgo and Go
// versions it was built with.
func versionCmd(args []string) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	kit, ginkgo := "unknown", "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		kit = bi.Main.Version
		if build.DistVersion != "" {
			// A release archive's CLI (make dist): built from a checkout with -buildvcs=false,
			// so the build info knows no version; the one it was stamped with is its own.
			kit = build.DistVersion + " (release archive)"
		} else if kit == "" || kit == "(devel)" {
			kit = "a checkout" + checkoutCommit()
			settings := map[string]string{}
			for _, s := range bi.Settings {
				settings[s.Key] = s.Value
			}
			if rev := settings["vcs.revision"]; rev != "" {
				kit = "commit " + rev
				if settings["vcs.modified"] == "true" {
					kit += " with uncommitted changes"
				}
			}
		}
		for _, d := range bi.Deps {
			if d.Path == "github.com/onsi/ginkgo/v2" {
				ginkgo = d.Version
			}
		}
	}
	fmt.Printf("classproof %s\nginkgo %s (the suites run with the ginkgo CLI go.mod pins)\n%s %s/%s\n", kit, ginkgo, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return exitPassed
}

// checkoutCommit names the commit of the kit's own checkout, when git can say.
func checkoutCommit() string {
	dir, err := build.KitDir()
	if err != nil {
		return ""
	}
	rev, err := exec.Command("git", "-C", dir, "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return ""
	}
	s := " at commit " + strings.TrimSpace(string(rev))
	if dirty, _ := exec.Command("git", "-C", dir, "status", "--porcelain", "--untracked-files=no").Output(); len(dirty) > 0 {
		s += " with uncommitted changes"
	}
	return s
}
