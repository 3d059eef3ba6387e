package runner

import (
	"flag"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/classproof/classproof/helpers/launcher"
)

// Flag is one command-line flag of the kit's commands: its name, its help, and the one field it
// sets (one of the pointers). A command's flags are a Table of them: the CLI defines them from it
// (Define) and a receipt's Reproduce line is written from the same table (Args), so a new flag
// cannot be left out of either.
type Flag struct {
	Name, Usage string
	Str         *string
	List        *[]string
	Num         *int
	On          *bool
	Dur         *time.Duration
}

// Table is a command's flags, in the order its help lists them.
type Table []Flag

// Define registers every flag on fs, each with its field's value now as its default.
func (t Table) Define(fs *flag.FlagSet) {
	for _, d := range t {
		switch {
		case d.Str != nil:
			fs.StringVar(d.Str, d.Name, *d.Str, d.Usage)
		case d.List != nil:
			fs.Var(List{d.List}, d.Name, d.Usage)
		case d.Num != nil:
			fs.IntVar(d.Num, d.Name, *d.Num, d.Usage)
		case d.Dur != nil:
			fs.DurationVar(d.Dur, d.Name, *d.Dur, d.Usage)
		default:
			fs.BoolVar(d.On, d.Name, *d.On, d.Usage)
		}
	}
}

// Args are t's flags whose values differ from defaults' (the same table over default values), in
// t's order, as a command line; a repeatable flag is given once per value.
func (t Table) Args(defaults Table) []string {
	var args []string
	for i, d := range t {
		switch {
		case d.Str != nil && *d.Str != *defaults[i].Str:
			args = append(args, "--"+d.Name, *d.Str)
		case d.List != nil:
			for _, v := range *d.List {
				args = append(args, "--"+d.Name, v)
			}
		case d.Num != nil && *d.Num != *defaults[i].Num:
			args = append(args, "--"+d.Name, strconv.Itoa(*d.Num))
		case d.Dur != nil && *d.Dur != *defaults[i].Dur:
			args = append(args, "--"+d.Name, d.Dur.String())
		case d.On != nil && *d.On:
			args = append(args, "--"+d.Name)
		}
	}
	return args
}

// List is a repeatable flag: each use appends a value.
type List struct{ To *[]string }

func (l List) String() string {
	if l.To == nil {
		return ""
	}
	return strings.Join(*l.To, " ")
}

func (l List) Set(v string) error { *l.To = append(*l.To, v); return nil }

// RunFlags are the flags of every command that runs the suites (run, redgreen, mutants,
// required-specs), defined once: each command takes the ones it has (Table's names), and its
// deadline is made from Timeout once, when it starts (Deadline).
type RunFlags struct {
	Lane        string
	Suites      []string
	Procs       int
	Focus       string
	LabelFilter string
	Timeout     time.Duration
	Vars        []string
	Out         string
	Repo        string
	Targets     []string
}

// The run flags' names, as Table takes them.
const (
	FlagLane, FlagSuite, FlagProcs, FlagFocus = "lane", "suite", "procs", "focus"
	FlagLabelFilter, FlagTimeout, FlagVar     = "label-filter", "timeout", "var"
	FlagOut, FlagRepo, FlagTarget             = "out", "repo", "target"
)

// commandFlags is one command's share of the run flags: which it takes (nil: all), its defaults,
// what its --out holds and what its --timeout bounds.
type commandFlags struct {
	names     []string
	defaults  RunFlags
	out, what string
}

// byCommand is every command's share, side by side: a default or a meaning changes here, once,
// and a command's help, its parsing and its receipts' Reproduce lines follow.
var byCommand = map[string]commandFlags{
	"run": {nil, RunFlags{Procs: 1, Timeout: 30 * time.Minute, Out: "out/run"},
		"folder for report.json, junit.xml and the pid ledger", "the whole run: the launcher's build, compiling the suites, the suites"},
	"redgreen": {nil, RunFlags{Procs: 1, Timeout: time.Hour, Out: "out/redgreen"},
		"folder for the receipts and each side's reports", "the whole proof: each side's build and run, and the repeats"},
	"bisect": {nil, RunFlags{Procs: 1, Timeout: 2 * time.Hour, Out: "out/bisect"},
		"folder for the receipts and each step's reports", "the whole search: every step's build and run"},
	"mutants": {[]string{FlagTarget, FlagProcs, FlagFocus, FlagTimeout, FlagVar, FlagOut, FlagRepo}, RunFlags{Procs: 1, Timeout: 3 * time.Hour, Out: "out/mutants"},
		"folder for matrix.md, matrix.json and each run's reports", "the whole matrix: the baseline, every variant's build and runs"},
	"required-specs": {[]string{FlagTimeout}, RunFlags{Timeout: 10 * time.Minute}, "", "the dry runs of every lane"},
	"doctor":         {[]string{FlagTarget, FlagVar, FlagRepo}, RunFlags{}, "", ""},
	"bench":          {[]string{FlagTarget, FlagVar, FlagRepo}, RunFlags{}, "", ""},
}

// DefaultsFor is command's run flags at its defaults. A command with no share here is a bug of
// the kit's, said at once.
func DefaultsFor(command string) RunFlags { return share(command).defaults }

func share(command string) commandFlags {
	c, ok := byCommand[command]
	if !ok {
		panic("runner: no run flags for command " + command)
	}
	return c
}

// Table is the run flags command takes, in one fixed order, set through f.
func (f *RunFlags) Table(command string) Table {
	c := share(command)
	all := Table{
		{Name: FlagTarget, List: &f.Targets, Usage: "a target manifest: a file, or embedded:NAME (default: embedded:refmux.yaml; repeatable in mutants, once elsewhere; redgreen and bisect need one whose build step reads {repo})"},
		{Name: FlagLane, Str: &f.Lane, Usage: "darwin, linux-idle or linux-ignore (default: this OS's lane for the target; another is refused)"},
		{Name: FlagSuite, List: &f.Suites, Usage: "a suite to run, e.g. ./suites/cpuclass (repeatable; default: all)"},
		{Name: FlagProcs, Num: &f.Procs, Usage: "Ginkgo parallel processes"},
		{Name: FlagFocus, Str: &f.Focus, Usage: "a Ginkgo focus regexp on the full spec text"},
		{Name: FlagLabelFilter, Str: &f.LabelFilter, Usage: "a further Ginkgo label filter, ANDed with the lane's"},
		{Name: FlagTimeout, Dur: &f.Timeout, Usage: c.what + " (0: no deadline)"},
		{Name: FlagVar, List: &f.Vars, Usage: "NAME=VALUE: set a var the manifest declares (repeatable), e.g. variant=noclass"},
		{Name: FlagOut, Str: &f.Out, Usage: c.out},
		{Name: FlagRepo, Str: &f.Repo, Usage: "the launcher's source tree, the manifest's {repo}; for redgreen and bisect, the git repository whose commits they build (default: the root of the git repository that holds the manifest; for an embedded one, the repository you are in)"},
	}
	if c.names == nil {
		return all
	}
	return slices.DeleteFunc(all, func(d Flag) bool { return !slices.Contains(c.names, d.Name) })
}

// Target is the one --target of a command that drives one target: "" (the default) when none
// was given, an error naming the values when more than one was.
func (f RunFlags) Target() (string, error) {
	switch len(f.Targets) {
	case 0:
		return "", nil
	case 1:
		return f.Targets[0], nil
	}
	return "", fmt.Errorf("--target given %d times (%s): this command drives one target; only mutants takes several", len(f.Targets), strings.Join(f.Targets, ", "))
}

// Deadline is when a command started at start with these flags must be over: zero for no
// --timeout. Every run the command makes gets this one time (Options.Deadline).
func (f RunFlags) Deadline(start time.Time) time.Time {
	if f.Timeout <= 0 {
		return time.Time{}
	}
	return start.Add(f.Timeout)
}

// Options are the run these flags ask for, against t (resolved with f.Vars), ending at deadline.
func (f RunFlags) Options(t *launcher.Resolved, deadline time.Time) Options {
	return Options{Target: t, Lane: f.Lane, Suites: f.Suites, OutDir: f.Out, Procs: f.Procs,
		LabelFilter: f.LabelFilter, Focus: f.Focus, Deadline: deadline}
}

// FocusOn is a Ginkgo --focus that selects the specs named: Ginkgo matches a focus against the suite's description, a
// space and the spec's full text (internal/focus.go). A spec whose text ends in another's, after
// a space, would match too; a caller that counts what ran sees it (mutants' first specs, bisect's steps).
func FocusOn(specs []string) string {
	q := make([]string, len(specs))
	for i, s := range specs {
		q[i] = regexp.QuoteMeta(s)
	}
	return " (?:" + strings.Join(q, "|") + ")$"
}
