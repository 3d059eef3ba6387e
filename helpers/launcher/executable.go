package launcher

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/identity"
	"github.com/classproof/classproof/helpers/manifest"
)

// CheckBinaries makes a missing launcher binary one clear error before any spec, instead of the
// same "no such file" in every spec.
func (d *Driver) CheckBinaries() error {
	var errs []string
	fields := map[string][]string{"daemon.run": d.Manifest.Daemon.Run, "session.direct": d.Manifest.Session.Direct, "session.hosted": d.Manifest.Session.Hosted,
		"spawn_spec": d.Manifest.SpawnSpec}
	if d.Manifest.Host != nil {
		fields["host.run"] = d.Manifest.Host.Run
	}
	if c := d.Manifest.Config; c != nil {
		fields["config.set"], fields["config.get"], fields["config.unset"] = c.Set, c.Get, c.Unset
	}
	if e := d.Manifest.Explain; e != nil {
		fields["explain.run"] = e.Run
	}
	names := make([]string, 0, len(fields))
	for f := range fields {
		names = append(names, f)
	}
	sort.Strings(names)
	// One line per binary, naming every field that runs it.
	var bins []string
	uses := map[string][]string{}
	for _, field := range names {
		argv := fields[field]
		if len(argv) == 0 {
			continue
		}
		got, err := manifest.ExpandList(argv[:1], d.vals)
		if err != nil {
			continue // depends on a per-launch value; checked when it runs
		}
		if uses[got[0]] == nil {
			bins = append(bins, got[0])
		}
		uses[got[0]] = append(uses[got[0]], field+"[0]")
	}
	for _, bin := range bins {
		if _, err := executable(d.RunsAs, bin, ""); err != nil {
			errs = append(errs, fmt.Sprintf("%s %q: %v%s", strings.Join(uses[bin], ", "), bin, err, d.wayOut(bin, err)))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("target manifest %s:\n  %s", d.Manifest.Source, strings.Join(errs, "\n  "))
	}
	return nil
}

// wayOut is what a binary's error in CheckBinaries tells the user to do: for a folder its
// launcher's user cannot pass, open it or run the launcher as root; for a binary missing or not
// executable, what should have made it (Made, or the build step), never a build step the kit did
// not run (a release archive's user has no Go); for a command looked up on PATH, nothing more
// (LookPath's error names its ways out: no build step makes a PATH tool).
func (d *Driver) wayOut(bin string, err error) string {
	var far *identity.UnreachableError
	switch {
	case !strings.Contains(bin, "/"):
		return ""
	case errors.As(err, &far):
		return fmt.Sprintf(" (open the folders on the way to pass through (chmod o+x), or set %s=0 to run the launcher as root (run.json then says it held root))", contract.LauncherUIDEnv)
	case d.Made != "":
		return " (" + d.Made + ")"
	case d.Manifest.Build != nil:
		return " (the build step should make it: " + strings.Join(d.Manifest.Build.Run, " ") + ")"
	}
	return ""
}

// executable is the file a launcher command's argv[0] names, as launcher processes find it: a
// bare name looked up on PATH as their user (identity.Identity.LookPath), a path checked that it
// names a file that user may run (a relative one from dir, where the command runs; "" for the
// kit's folder); the error in the OS's words, or naming what stops that user. A path is returned
// as written: exec resolves a relative one from the command's own folder.
func executable(id identity.Identity, path, dir string) (string, error) {
	if !strings.Contains(path, "/") {
		return id.LookPath(path)
	}
	p := path
	if !filepath.IsAbs(p) && dir != "" {
		p = filepath.Join(dir, p)
	}
	fi, err := os.Stat(p)
	if err != nil {
		return "", err
	}
	if fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("not executable (mode %v)", fi.Mode())
	}
	return path, id.MayRun(p)
}
