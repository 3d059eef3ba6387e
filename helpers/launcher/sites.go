package launcher

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/classproof/classproof/helpers/base/contract"
)

// EverySite stands, in a spec's sites, for a record the kit could not read: a kill matrix then
// counts the spec as reaching every site, so a record a launcher spoiled costs time, never a
// spec that should have run.
const EverySite = "*"

// SitesBytes bounds the sites file the kit reads: a few lines a process.
const SitesBytes = 1 << 20

var siteName = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,64}$`)

// SiteName says whether s may name a site: in a sites file and in a values file alike.
func SiteName(s string) bool { return siteName.MatchString(s) }

// sitesFile is where the instance's processes record the sites they reach: in a folder of
// theirs, which the kit removes with the instance.
func (l *Instance) sitesFile() string { return filepath.Join(l.Dir, "run", "sites") }

// recording says whether the instance's processes record sites: the run asks for them and the
// manifest names a variable.
func (l *Instance) recording() bool {
	return l.d.Manifest.SitesEnv != "" && contract.Current().Sites
}

// sitesEnv is the variable that names the sites file, where the instance records sites. It goes
// last among a process's env layers: a manifest's env cannot turn recording off unseen.
func (l *Instance) sitesEnv() map[string]string {
	if !l.recording() {
		return nil
	}
	return map[string]string{l.d.Manifest.SitesEnv: l.sitesFile()}
}

// Sites are the variant sites the instance's processes recorded (sites_env), each with how many
// lines named it; nil where the run records none. What the launcher wrote is a claim: a file
// that is gone, is not a regular one, is too long or holds a line that is not a site's name is
// an error naming it, and the map then holds EverySite.
func (l *Instance) Sites() (map[string]int64, error) {
	if !l.recording() {
		return nil, nil
	}
	path := l.sitesFile()
	b, err := l.d.RunsAs.ReadClaim(path, SitesBytes) // as the launcher: its folder, its symlinks
	if errors.Is(err, fs.ErrNotExist) {
		err = fmt.Errorf("%s is gone: the kit made it, empty, before the launcher started", path)
	}
	if err == nil {
		var sites map[string]int64
		if sites, err = parseSites(path, string(b)); err == nil {
			return sites, nil
		}
	}
	return map[string]int64{EverySite: 1}, fmt.Errorf("%s's sites (%s): %w; this spec counts as reaching every site", l.d.Manifest.Name, l.d.Manifest.SitesEnv, err)
}

func parseSites(path, text string) (map[string]int64, error) {
	sites := map[string]int64{}
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if line == "" && text == "" {
			break
		}
		if !SiteName(line) {
			return nil, fmt.Errorf("%s line %d: %.80q: expected a site's name (1 to 64 of A-Z a-z 0-9 _ . : -)", path, i+1, line)
		}
		sites[line]++
	}
	return sites, nil
}
