package runner

import (
	"flag"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/classproof/classproof/helpers/manifest"
)

// Flag is one command-line flag of the kit's commands: its name, its help, and the one field it
// sets (one of the pointers). Every command's flags are a Table of them, its own rows and its
// share of the run flags (Share): the CLI defines them from it (Define) and a receipt's Reproduce
// line is written from the same table (Args), so a new flag cannot be left out of either.
type Flag struct {
	Name, Usage string
	Str         *string
	List        *[]string
	Num         *int
	On          *bool
	Dur         *time.Duration
	Float       *float64
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
		case d.Float != nil:
			fs.Float64Var(d.Float, d.Name, *d.Float, d.Usage)
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
		case d.Float != nil && *d.Float != *defaults[i].Float:
			args = append(args, "--"+d.Name, strconv.FormatFloat(*d.Float, 'g', -1, 64))
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

// RunFlags are the values of the run flags: the flags the commands that drive a launcher or run
// the suites share. Each command takes the groups it needs (Share), and its deadline is made
// from Timeout once, when it starts (Deadline).
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

// Group is a set of run flags, one bit a flag: a command takes the union of the groups it needs
// (a mask, as cmd/go's work.AddBuildFlags), and nothing here knows which command takes which.
type Group uint

// The run flags, one bit each.
const (
	FlagTarget Group = 1 << iota
	FlagLane
	FlagSuite
	FlagProcs
	FlagFocus
	FlagLabelFilter
	FlagTimeout
	FlagVar
	FlagOut
	FlagRepo
)

// The groups commands share.
const (
	// TargetFlags say which launcher: --target, --var, --repo.
	TargetFlags = FlagTarget | FlagVar | FlagRepo
	// SelectionFlags say which specs run, and how: --lane, --suite, --procs, --focus, --label-filter.
	SelectionFlags = FlagLane | FlagSuite | FlagProcs | FlagFocus | FlagLabelFilter
	// BoundFlags say where the command writes and when it must be over: --out, --timeout.
	BoundFlags = FlagOut | FlagTimeout
	// AllRunFlags is every run flag.
	AllRunFlags = TargetFlags | SelectionFlags | BoundFlags
)

// Share is one command's share of the run flags, declared by the command beside its own flags:
// the groups it takes, its defaults, and what its --out holds and its --timeout bounds (each
// command says its own).
type Share struct {
	Takes    Group
	Defaults RunFlags
	Out      string // what --out holds, when Takes has FlagOut
	Bounds   string // what --timeout bounds, when Takes has FlagTimeout
}

// Table is the run flags s takes, in one fixed order (a Reproduce line's), set through f. A
// share that takes --out or --timeout without saying what it means is a bug of the kit's, said
// at once.
func (f *RunFlags) Table(s Share) Table {
	if s.Takes&FlagOut != 0 && s.Out == "" || s.Takes&FlagTimeout != 0 && s.Bounds == "" {
		panic("runner: a share of the run flags takes --out or --timeout and says nothing of what it holds or bounds")
	}
	all := []struct {
		bit Group
		Flag
	}{
		{FlagTarget, Flag{Name: "target", List: &f.Targets, Usage: "a target manifest: a file, or embedded:NAME (default: embedded:refmux.yaml; repeatable in mutants, once elsewhere; redgreen and bisect need one whose build step reads {repo})"}},
		{FlagLane, Flag{Name: "lane", Str: &f.Lane, Usage: "darwin, linux-idle or linux-ignore (default: this OS's lane for the target; another is refused)"}},
		{FlagSuite, Flag{Name: "suite", List: &f.Suites, Usage: "a suite to run, e.g. ./suites/cpuclass (repeatable; default: all)"}},
		{FlagProcs, Flag{Name: "procs", Num: &f.Procs, Usage: "Ginkgo parallel processes"}},
		{FlagFocus, Flag{Name: "focus", Str: &f.Focus, Usage: "a Ginkgo focus regexp on the full spec text"}},
		{FlagLabelFilter, Flag{Name: "label-filter", Str: &f.LabelFilter, Usage: "a further Ginkgo label filter, ANDed with the lane's"}},
		{FlagTimeout, Flag{Name: "timeout", Dur: &f.Timeout, Usage: s.Bounds + " (0: no deadline)"}},
		{FlagVar, Flag{Name: "var", List: &f.Vars, Usage: "NAME=VALUE: set a var the manifest declares (repeatable), e.g. variant=noclass"}},
		{FlagOut, Flag{Name: "out", Str: &f.Out, Usage: s.Out}},
		{FlagRepo, Flag{Name: "repo", Str: &f.Repo, Usage: "the launcher's source tree, the manifest's {repo}; for redgreen and bisect, the git repository whose commits they build (default: the root of the git repository that holds the manifest; for an embedded one, the repository you are in)"}},
	}
	var t Table
	for _, d := range all {
		if s.Takes&d.bit != 0 {
			t = append(t, d.Flag)
		}
	}
	return t
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
func (f RunFlags) Options(t *manifest.Resolved, deadline time.Time) Options {
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
