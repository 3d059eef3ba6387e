package bisect

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"time"

	"github.com/classproof/classproof/helpers/manifest"
	"github.com/classproof/classproof/helpers/runner"
)

// Flags are the bisect command's flags: its own (--good, --bad) on the run flags every command
// shares. The CLI parses them (Define) and the receipt's Reproduce line is written from the same
// table (Args).
type Flags struct {
	Good, Bad string
	runner.RunFlags
}

// runFlags is bisect's share of the run flags: all of them.
var runFlags = runner.Share{Takes: runner.AllRunFlags,
	Defaults: runner.RunFlags{Procs: 1, Timeout: 2 * time.Hour, Out: "out/bisect"},
	Out:      "folder for the receipts and each step's reports",
	Bounds:   "the whole search: every step's build and run"}

// DefaultFlags are bisect's defaults.
func DefaultFlags() Flags {
	return Flags{RunFlags: runFlags.Defaults}
}

func (f *Flags) table() runner.Table {
	own := runner.Table{
		{Name: "good", Str: &f.Good, Usage: "a commit whose lane passes the specs"},
		{Name: "bad", Str: &f.Bad, Usage: "a later commit whose lane fails them"},
	}
	return append(own, f.RunFlags.Table(runFlags)...)
}

// Define registers every flag on fs.
func (f *Flags) Define(fs *flag.FlagSet) { f.table().Define(fs) }

// Args are the flags that differ from the defaults, as a command line.
func (f Flags) Args() []string {
	def := DefaultFlags()
	return f.table().Args(def.table())
}

// Options checks the flags and resolves the launcher once (manifest.Resolve), with every path
// absolute so that the Reproduce line works from any folder; a build step that reads nothing of
// {repo} is refused (every step would build the same launcher). Repo is the repository searched.
func (f Flags) Options(c manifest.Catalog, kit string, start time.Time) (Options, error) {
	target, err := f.Target()
	if err == nil && (f.Good == "" || f.Bad == "" || target == "") {
		err = errors.New("give --good REV --bad REV --target MANIFEST")
	}
	if err != nil {
		return Options{}, err
	}
	for _, p := range []*string{&f.Repo, &f.Out} {
		if *p, err = filepath.Abs(*p); err != nil {
			return Options{}, err
		}
	}
	t, err := manifest.Resolve(c, target, f.Vars, kit, f.Repo)
	if err != nil {
		return Options{}, err
	}
	if ok, why := t.Manifest.ReadsRepo(); !ok {
		return Options{}, fmt.Errorf("target %s: its build step reads nothing of {repo} (%s): every step would build the same launcher", t.Ref, why)
	}
	f.Targets = []string{t.Ref}
	return Options{Flags: f, Launcher: t, Deadline: f.Deadline(start)}, nil
}
