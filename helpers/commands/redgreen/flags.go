package redgreen

import (
	"errors"
	"flag"
	"path/filepath"
	"time"

	"github.com/classproof/classproof/helpers/manifest"
	"github.com/classproof/classproof/helpers/runner"
)

// Flags are the redgreen command's flags, defined here once on the run flags every command
// shares (runner.RunFlags): the CLI parses them (Define), the proof's launchers are resolved from
// them (Options), and the receipt's Reproduce line is written from the same table (Args), so a
// new flag cannot be left out of it.
type Flags struct {
	Red, Green, RedTarget, GreenTarget string
	runner.RunFlags
	Repeat     int
	AllowDirty bool
}

// runFlags is redgreen's share of the run flags: all of them.
var runFlags = runner.Share{Takes: runner.AllRunFlags,
	Defaults: runner.RunFlags{Procs: 1, Timeout: time.Hour, Out: "out/redgreen"},
	Out:      "folder for the receipts and each side's reports",
	Bounds:   "the whole proof: each side's build and run, and the repeats"}

// DefaultFlags are redgreen's defaults.
func DefaultFlags() Flags {
	return Flags{RunFlags: runFlags.Defaults}
}

func (f *Flags) table() runner.Table {
	own := runner.Table{
		{Name: "red", Str: &f.Red, Usage: "the ref that must fail (the commit before the fix)"},
		{Name: "green", Str: &f.Green, Usage: "the ref that must pass (the fix)"},
		{Name: "red-target", Str: &f.RedTarget, Usage: "instead of --repo: manifest of a prebuilt red launcher"},
		{Name: "green-target", Str: &f.GreenTarget, Usage: "instead of --repo: manifest of a prebuilt green launcher"},
		{Name: "repeat", Num: &f.Repeat, Usage: "run green this many more times, to show it is stable"},
		{Name: "allow-dirty", On: &f.AllowDirty, Usage: "prove refs at HEAD although tracked files have uncommitted changes (the receipt says so)"},
	}
	return append(own, f.RunFlags.Table(runFlags)...)
}

// Define registers every flag on fs, its default f's value now.
func (f *Flags) Define(fs *flag.FlagSet) { f.table().Define(fs) }

// Args are the flags that differ from DefaultFlags, in the table's order, as a command line.
func (f Flags) Args() []string {
	def := DefaultFlags()
	return f.table().Args(def.table())
}

// Options checks the flags and resolves the proof's launchers (manifest.Resolve) with the kit in
// kit: in repository mode one manifest, built from each side's checkout of Repo; else one
// prebuilt launcher per side. Every path is made absolute, so the Reproduce line works from any
// folder. The deadline counts from start, when the command began.
func (f Flags) Options(c manifest.Catalog, kit string, start time.Time) (Options, error) {
	repoMode := f.RedTarget == "" && f.GreenTarget == ""
	target, err := f.Target()
	switch {
	case err != nil:
		return Options{}, err
	case repoMode && (f.Red == "" || f.Green == "" || target == ""):
		return Options{}, errors.New("--repo needs --red REF, --green REF and --target MANIFEST")
	case !repoMode && (f.RedTarget == "" || f.GreenTarget == ""):
		return Options{}, errors.New("give --repo DIR --red REF --green REF --target MANIFEST, or --red-target MANIFEST --green-target MANIFEST")
	case !repoMode && (f.Repo != "" || target != ""):
		return Options{}, errors.New("--repo and --target go together, not with --red-target/--green-target (prebuilt launchers build nothing)")
	}
	for _, p := range []*string{&f.Repo, &f.Out} {
		if *p != "" {
			if *p, err = filepath.Abs(*p); err != nil {
				return Options{}, err
			}
		}
	}
	o := Options{Flags: f, Selection: Selection{Focus: f.Focus, LabelFilter: f.LabelFilter}, Deadline: f.Deadline(start)}
	if repoMode {
		o.Launcher, err = manifest.Resolve(c, target, f.Vars, kit, f.Repo)
		if err == nil {
			o.Flags.Targets = []string{o.Launcher.Ref}
		}
		return o, err
	}
	if o.RedLauncher, err = manifest.Resolve(c, f.RedTarget, f.Vars, kit, ""); err != nil {
		return o, err
	}
	if o.GreenLauncher, err = manifest.Resolve(c, f.GreenTarget, f.Vars, kit, ""); err != nil {
		return o, err
	}
	o.Flags.RedTarget, o.Flags.GreenTarget = o.RedLauncher.Ref, o.GreenLauncher.Ref
	return o, nil
}

// reproduce is the command line that runs the proof o describes again, from any folder.
func reproduce(o Options) string { return runner.Reproduce(o.kit(), "redgreen", o.Flags.Args()) }

func (o Options) kit() string {
	for _, t := range []*manifest.Resolved{o.Launcher, o.RedLauncher, o.GreenLauncher} {
		if t != nil {
			return t.Kit
		}
	}
	return "."
}
