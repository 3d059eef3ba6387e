package redgreen

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/classproof/classproof/helpers/binaries"
	"github.com/classproof/classproof/helpers/launcher"
)

// Flags are the redgreen command's flags, defined here once: the CLI parses them (Define), the
// proof's launchers are resolved from them (Options), and the receipt's Reproduce line is written
// from the same table (Args), so a new flag cannot be left out of it.
type Flags struct {
	Repo, Red, Green, Target, RedTarget, GreenTarget string
	Focus, LabelFilter, Lane, Out                    string
	Suites, Vars                                     []string
	Repeat, Procs                                    int
	AllowDirty                                       bool
}

// DefaultFlags are the flags' defaults.
func DefaultFlags() Flags { return Flags{Out: "out/redgreen", Procs: 1} }

// def is one flag: its name, its help, and the field it sets (one of the four pointers).
type def struct {
	name, usage string
	str         *string
	list        *[]string
	num         *int
	on          *bool
}

func (f *Flags) table() []def {
	return []def{
		{name: "repo", str: &f.Repo, usage: "the launcher's git repository (default, without --red-target/--green-target: the one you are in)"},
		{name: "red", str: &f.Red, usage: "the ref that must fail (the commit before the fix)"},
		{name: "green", str: &f.Green, usage: "the ref that must pass (the fix)"},
		{name: "target", str: &f.Target, usage: "manifest whose build step builds {repo}"},
		{name: "red-target", str: &f.RedTarget, usage: "instead of --repo: manifest of a prebuilt red launcher"},
		{name: "green-target", str: &f.GreenTarget, usage: "instead of --repo: manifest of a prebuilt green launcher"},
		{name: "focus", str: &f.Focus, usage: "regexp on the full spec text: the specs the proof is about"},
		{name: "label-filter", str: &f.LabelFilter, usage: "Ginkgo label query: the specs the proof is about"},
		{name: "lane", str: &f.Lane, usage: "the lane (default: this OS's lane for the target)"},
		{name: "suite", list: &f.Suites, usage: "a suite to run, e.g. ./suites/cpuclass (repeatable; default: all)"},
		{name: "var", list: &f.Vars, usage: "NAME=VALUE for the manifest (repeatable)"},
		{name: "repeat", num: &f.Repeat, usage: "run green this many more times, to show it is stable"},
		{name: "allow-dirty", on: &f.AllowDirty, usage: "prove refs at HEAD although tracked files have uncommitted changes (the receipt says so)"},
		{name: "procs", num: &f.Procs, usage: "Ginkgo parallel processes"},
		{name: "out", str: &f.Out, usage: "folder for the receipts and each side's reports"},
	}
}

// list is a repeatable flag.
type list struct{ to *[]string }

func (l list) String() string {
	if l.to == nil {
		return ""
	}
	return strings.Join(*l.to, " ")
}

func (l list) Set(v string) error { *l.to = append(*l.to, v); return nil }

// Define registers every flag on fs, its default f's value now.
func (f *Flags) Define(fs *flag.FlagSet) {
	for _, d := range f.table() {
		switch {
		case d.str != nil:
			fs.StringVar(d.str, d.name, *d.str, d.usage)
		case d.list != nil:
			fs.Var(list{d.list}, d.name, d.usage)
		case d.num != nil:
			fs.IntVar(d.num, d.name, *d.num, d.usage)
		default:
			fs.BoolVar(d.on, d.name, *d.on, d.usage)
		}
	}
}

// Args are the flags that differ from DefaultFlags, in the table's order, as a command line.
func (f Flags) Args() []string {
	def := DefaultFlags()
	defaults := def.table()
	var args []string
	for i, d := range f.table() {
		switch {
		case d.str != nil && *d.str != *defaults[i].str:
			args = append(args, "--"+d.name, *d.str)
		case d.list != nil:
			for _, v := range *d.list {
				args = append(args, "--"+d.name, v)
			}
		case d.num != nil && *d.num != *defaults[i].num:
			args = append(args, "--"+d.name, strconv.Itoa(*d.num))
		case d.on != nil && *d.on:
			args = append(args, "--"+d.name)
		}
	}
	return args
}

// Options checks the flags and resolves the proof's launchers (launcher.Resolve) with the kit in
// kit: in repository mode one manifest, built from each side's checkout of Repo; else one
// prebuilt launcher per side. Every path is made absolute, so the Reproduce line works from any
// folder.
func (f Flags) Options(c launcher.Catalog, kit string) (Options, error) {
	repoMode := f.RedTarget == "" && f.GreenTarget == ""
	switch {
	case repoMode && (f.Red == "" || f.Green == "" || f.Target == ""):
		return Options{}, errors.New("--repo needs --red REF, --green REF and --target MANIFEST")
	case !repoMode && (f.RedTarget == "" || f.GreenTarget == ""):
		return Options{}, errors.New("give --repo DIR --red REF --green REF --target MANIFEST, or --red-target MANIFEST --green-target MANIFEST")
	case !repoMode && f.Repo != "":
		return Options{}, errors.New("--repo goes with --target, not with --red-target/--green-target (prebuilt launchers build nothing)")
	}
	var err error
	for _, p := range []*string{&f.Repo, &f.Out} {
		if *p != "" {
			if *p, err = filepath.Abs(*p); err != nil {
				return Options{}, err
			}
		}
	}
	o := Options{Flags: f, Selection: Selection{Focus: f.Focus, LabelFilter: f.LabelFilter}}
	if repoMode {
		o.Launcher, err = launcher.Resolve(c, f.Target, f.Vars, kit, f.Repo)
		if err == nil {
			o.Flags.Target = o.Launcher.Ref
		}
		return o, err
	}
	if o.RedLauncher, err = launcher.Resolve(c, f.RedTarget, f.Vars, kit, ""); err != nil {
		return o, err
	}
	if o.GreenLauncher, err = launcher.Resolve(c, f.GreenTarget, f.Vars, kit, ""); err != nil {
		return o, err
	}
	o.Flags.RedTarget, o.Flags.GreenTarget = o.RedLauncher.Ref, o.GreenLauncher.Ref
	return o, nil
}

// reproduce is the command line that runs the proof o describes again, from any folder: the
// archive's own CLI (no Go needed) or go run in the kit's folder, then o's flags.
func reproduce(o Options) string {
	args := []string{"cd", shellQuote(o.kit()), "&&", "go", "run", "./cmd/classproof", "redgreen"}
	if binaries.Prebuilt() != "" {
		if exe, err := os.Executable(); err == nil {
			args = []string{shellQuote(exe), "redgreen"}
		}
	}
	for _, a := range o.Flags.Args() {
		args = append(args, shellQuote(a))
	}
	return strings.Join(args, " ")
}

func (o Options) kit() string {
	for _, t := range []*launcher.Resolved{o.Launcher, o.RedLauncher, o.GreenLauncher} {
		if t != nil {
			return t.Kit
		}
	}
	return "."
}
